import { NotFoundMessage } from "@/components/portal/not-found-message";

// A portal page's 404 (notFound(): a page the session may not open, a call of another account) renders inside the
// portal's layout, whose main already holds it: a second main here would nest landmarks.
export default function PortalNotFound() {
  return (
    <div className="grid min-h-[60vh] place-items-center">
      <NotFoundMessage />
    </div>
  );
}
