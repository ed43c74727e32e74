import { nativeCdrSchema, type NativeCdr } from "../schemas";

/** An answered call as a switch posts it: answered when it starts, `seconds` long, outbound unless said otherwise. */
export function answeredCdr(call: {
  uuid: string;
  billingGroupId: string;
  startMs: number;
  seconds: number;
  to: string;
  from?: string;
  direction?: "inbound" | "outbound";
}): NativeCdr {
  const start = new Date(call.startMs).toISOString();
  return nativeCdrSchema.parse({
    uuid: call.uuid,
    direction: call.direction ?? "outbound",
    from: call.from ?? "4930123456",
    to: call.to,
    billingGroupId: call.billingGroupId,
    startTime: start,
    answerTime: start,
    endTime: new Date(call.startMs + call.seconds * 1000).toISOString(),
  });
}
