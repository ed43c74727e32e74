/**
 * A document's two downloads, the PDF and its period's calls as CSV (the /v1 links, which the session cookie opens),
 * named with the document's number: one place for the list's rows, its phone cards and the invoice's page.
 */
export function InvoiceDownloads({
  id,
  number,
  linkClassName,
  separator = null,
}: {
  id: string;
  number: string;
  linkClassName: string;
  separator?: React.ReactNode;
}) {
  return (
    <>
      <a href={`/v1/invoices/${id}/pdf`} className={linkClassName} aria-label={`Download ${number} as PDF`} download>
        PDF
      </a>
      {separator}
      <a
        href={`/v1/invoices/${id}/calls.csv`}
        className={linkClassName}
        aria-label={`Download the calls CSV of ${number}`}
        download
      >
        Calls CSV
      </a>
    </>
  );
}
