export default function HomePage() {
  return (
    <main className="mx-auto max-w-3xl p-8">
      <h1 className="text-2xl font-semibold">Callbook</h1>
      <p className="mt-2 text-slate-600">Call records, balance and rate lookup.</p>
    </main>
  );
}
