import { NotFoundMessage } from "@/components/portal/not-found-message";

// Our own 404 (Next's default one inlines styles into every page's RSC payload), for a URL no route matches; a portal
// page's notFound() has (portal)/not-found.tsx, inside the portal's layout and its main.
export default function NotFound() {
  return (
    <main className="grid min-h-screen place-items-center px-4">
      <NotFoundMessage />
    </main>
  );
}
