/** The portal's panel: white, rounded, hairline border, soft shadow. */
export const cardClass = "rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
