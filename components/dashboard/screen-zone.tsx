/**
 * The one zone of the dashboard, said under its title: its days, its month and its latest calls' times are all cut
 * and shown in it (the account's), so the header's Local/UTC choice, which moves the call log's times, is not mixed in.
 */
export function ScreenZone({ zoneText }: { zoneText: string }) {
  return (
    <p className="-mt-4 text-sm text-slate-600" data-testid="screen-zone">
      Days and times in {zoneText}. The Local/UTC switch applies to the call log.
    </p>
  );
}
