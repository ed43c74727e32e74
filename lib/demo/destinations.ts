import type { Increment } from "@/lib/rating/schemas";

// Demo destinations: real country codes with real fixed (area) and mobile ranges, expanded the way
// carriers' rate decks list them (one row per operator range), with plausible per-minute rates in USD.

export type Region = "nanp" | "europe" | "asia" | "latam" | "africa" | "mideast" | "oceania";

export interface Country {
  cc: string;
  name: string;
  region: Region;
  /** Digits after the country code in a full number. */
  nsnLength: number;
  fixedRate: number;
  mobileRate: number;
  /** Area-code prefixes (full, with the country code) rated as fixed. */
  fixed: string[];
  /** Mobile range prefixes (full); each is expanded by `expand` digits into operator sub-ranges. */
  mobile: string[];
  expand: number;
}

const c = (
  cc: string,
  name: string,
  region: Region,
  nsnLength: number,
  fixedRate: number,
  mobileRate: number,
  fixed: string[],
  mobile: string[],
  expand = 1,
): Country => ({
  cc,
  name,
  region,
  nsnLength,
  fixedRate,
  mobileRate,
  fixed: fixed.map((p) => cc + p),
  mobile: mobile.map((p) => cc + p),
  expand,
});

// US area codes (NPAs), a large real subset; Canada's separately (they price differently).
const US_NPAS =
  "201 202 203 205 206 207 208 209 210 212 213 214 215 216 217 218 219 220 223 224 225 228 229 231 234 239 240 248 251 252 253 254 256 260 262 267 269 270 272 276 281 301 302 303 304 305 307 308 309 310 312 313 314 315 316 317 318 319 320 321 323 325 330 331 334 336 337 339 346 347 351 352 360 361 364 380 385 386 401 402 404 405 406 407 408 409 410 412 413 414 415 417 419 423 424 425 430 432 434 435 440 442 443 458 463 469 470 475 478 479 480 484 501 502 503 504 505 507 508 509 510 512 513 515 516 517 518 520 530 531 534 539 540 541 551 559 561 562 563 567 570 571 573 574 575 580 585 586 601 602 603 605 606 607 608 609 610 612 614 615 616 617 618 619 620 623 626 628 629 630 631 636 641 646 650 651 657 660 661 662 667 669 678 680 681 682 701 702 703 704 706 707 708 712 713 714 715 716 717 718 719 720 724 725 727 731 732 734 737 740 743 747 754 757 760 762 763 765 769 770 772 773 774 775 779 781 785 786 801 802 803 804 805 806 810 812 813 814 815 816 817 818 828 830 831 832 843 845 847 848 850 854 856 857 858 859 860 862 863 864 865 870 872 878 901 903 904 906 908 909 910 912 913 914 915 916 917 918 919 920 925 928 929 930 931 934 936 937 938 940 941 947 949 951 952 954 956 959 970 971 972 973 978 979 980 984 985 989".split(
    " ",
  );
const CANADA_NPAS =
  "204 226 236 249 250 289 306 343 365 403 416 418 431 437 438 450 506 514 519 548 579 581 587 604 613 639 647 672 705 709 778 780 782 807 819 825 867 873 902 905".split(
    " ",
  );
/** Big-city NPAs listed down to the exchange (NPA-NXX), as US decks do. */
const US_NXX_SPLIT = ["212", "213", "305", "312", "415", "646", "702", "713", "718", "917"];
const NANP_OTHER: [string, string, number][] = [
  ["1242", "Bahamas", 0.155],
  ["1246", "Barbados", 0.184],
  ["1264", "Anguilla", 0.21],
  ["1268", "Antigua and Barbuda", 0.196],
  ["1284", "British Virgin Islands", 0.172],
  ["1340", "US Virgin Islands", 0.019],
  ["1345", "Cayman Islands", 0.162],
  ["1441", "Bermuda", 0.098],
  ["1473", "Grenada", 0.205],
  ["1649", "Turks and Caicos", 0.231],
  ["1670", "Northern Mariana Islands", 0.045],
  ["1671", "Guam", 0.038],
  ["1684", "American Samoa", 0.142],
  ["1721", "Sint Maarten", 0.188],
  ["1758", "Saint Lucia", 0.214],
  ["1767", "Dominica", 0.226],
  ["1784", "Saint Vincent", 0.219],
  ["1787", "Puerto Rico", 0.012],
  ["1809", "Dominican Republic", 0.062],
  ["1829", "Dominican Republic", 0.062],
  ["1849", "Dominican Republic", 0.062],
  ["1868", "Trinidad and Tobago", 0.118],
  ["1869", "Saint Kitts and Nevis", 0.233],
  ["1876", "Jamaica", 0.176],
  ["1939", "Puerto Rico", 0.012],
];
/** Toll-free ranges: a customer pays for the inbound calls its freephone numbers receive. */
export const TOLL_FREE: [string, string, number][] = [
  ["1800", "USA/Canada toll-free (inbound)", 0.021],
  ["1833", "USA/Canada toll-free (inbound)", 0.021],
  ["1844", "USA/Canada toll-free (inbound)", 0.021],
  ["1855", "USA/Canada toll-free (inbound)", 0.021],
  ["1866", "USA/Canada toll-free (inbound)", 0.021],
  ["1877", "USA/Canada toll-free (inbound)", 0.021],
  ["1888", "USA/Canada toll-free (inbound)", 0.021],
  ["44800", "United Kingdom freephone (inbound)", 0.028],
  ["44808", "United Kingdom freephone (inbound)", 0.028],
  ["49800", "Germany freephone (inbound)", 0.032],
  ["33800", "France numéro vert (inbound)", 0.034],
  ["33805", "France numéro vert (inbound)", 0.034],
];

export const COUNTRIES: Country[] = [
  c(
    "44",
    "United Kingdom",
    "europe",
    10,
    0.0125,
    0.0245,
    [
      "1",
      "2",
      "20",
      "113",
      "114",
      "115",
      "116",
      "117",
      "118",
      "121",
      "131",
      "141",
      "151",
      "161",
      "191",
      "28",
      "29",
      "3",
    ],
    ["71", "72", "73", "74", "75", "77", "78", "79"],
  ),
  c(
    "49",
    "Germany",
    "europe",
    11,
    0.0148,
    0.0455,
    ["30", "40", "69", "89", "211", "221", "228", "231", "341", "351", "421", "511", "711", "911"],
    [
      "151",
      "152",
      "155",
      "157",
      "159",
      "160",
      "162",
      "163",
      "170",
      "171",
      "172",
      "173",
      "174",
      "175",
      "176",
      "177",
      "178",
      "179",
    ],
  ),
  c("33", "France", "europe", 9, 0.0139, 0.0352, ["1", "2", "3", "4", "5", "9"], ["6", "7"], 2),
  c("34", "Spain", "europe", 9, 0.0118, 0.0298, ["91", "93", "95", "96"], ["6", "7"], 2),
  c("39", "Italy", "europe", 10, 0.0152, 0.0398, ["02", "06", "011", "055", "081"], ["3"], 2),
  c("31", "Netherlands", "europe", 9, 0.0181, 0.0612, ["10", "20", "30", "70"], ["6"], 2),
  c("32", "Belgium", "europe", 9, 0.0196, 0.0718, ["2", "3", "9"], ["46", "47", "48", "49"]),
  c("41", "Switzerland", "europe", 9, 0.0248, 0.1495, ["22", "31", "44", "61"], ["75", "76", "77", "78", "79"]),
  c(
    "43",
    "Austria",
    "europe",
    10,
    0.0205,
    0.0912,
    ["1", "316", "512", "662", "732"],
    ["650", "660", "664", "676", "680", "681", "688", "699"],
  ),
  c(
    "48",
    "Poland",
    "europe",
    9,
    0.0151,
    0.0248,
    ["12", "22", "58", "61", "71"],
    ["50", "51", "53", "57", "60", "66", "69", "72", "73", "78", "79", "88"],
  ),
  c("353", "Ireland", "europe", 9, 0.0178, 0.0496, ["1", "21", "61", "91"], ["83", "85", "86", "87", "89"]),
  c("351", "Portugal", "europe", 9, 0.0149, 0.0402, ["21", "22"], ["91", "92", "93", "96"]),
  c("46", "Sweden", "europe", 9, 0.0146, 0.0301, ["8", "31", "40"], ["70", "72", "73", "76", "79"]),
  c("47", "Norway", "europe", 8, 0.0152, 0.0298, ["2", "5"], ["4", "9"]),
  c("45", "Denmark", "europe", 8, 0.0149, 0.0251, ["3", "8"], ["2", "3", "4", "5"]),
  c("7", "Russia", "europe", 10, 0.0512, 0.1198, ["495", "499", "812"], ["9"], 2),
  c("90", "Turkey", "europe", 10, 0.0798, 0.1504, ["212", "216", "312"], ["5"], 2),
  c("91", "India", "asia", 10, 0.0179, 0.0197, ["11", "22", "33", "40", "44", "80"], ["6", "7", "8", "9"], 2),
  c("92", "Pakistan", "asia", 10, 0.0998, 0.1195, ["21", "42", "51"], ["3"], 2),
  c("880", "Bangladesh", "asia", 10, 0.0402, 0.0398, ["2"], ["13", "14", "15", "16", "17", "18", "19"]),
  c("63", "Philippines", "asia", 10, 0.1196, 0.1588, ["2", "32"], ["9"], 2),
  c("62", "Indonesia", "asia", 10, 0.0795, 0.0996, ["21", "22", "31"], ["8"], 2),
  c("84", "Vietnam", "asia", 9, 0.0894, 0.0998, ["24", "28"], ["3", "5", "7", "8", "9"]),
  c("66", "Thailand", "asia", 9, 0.0498, 0.0502, ["2"], ["6", "8", "9"]),
  c("65", "Singapore", "asia", 8, 0.0199, 0.0201, ["6"], ["8", "9"]),
  c("852", "Hong Kong", "asia", 8, 0.0198, 0.0202, ["2", "3"], ["5", "6", "9"]),
  c("86", "China", "asia", 11, 0.0149, 0.0152, ["10", "20", "21", "755"], ["13", "15", "17", "18", "19"]),
  c("81", "Japan", "asia", 10, 0.0402, 0.0898, ["3", "6", "52"], ["70", "80", "90"]),
  c("82", "South Korea", "asia", 9, 0.0301, 0.0398, ["2", "51"], ["10"]),
  c("52", "Mexico", "latam", 10, 0.0199, 0.0298, ["33", "55", "81", "222", "664"], []),
  c("55", "Brazil", "latam", 11, 0.0201, 0.0598, ["11", "21", "31", "61"], ["119", "219", "319"]),
  c("57", "Colombia", "latam", 10, 0.0298, 0.0602, ["1", "2", "4"], ["3"], 2),
  c("54", "Argentina", "latam", 10, 0.0302, 0.0798, ["11", "351"], ["9"], 2),
  c(
    "234",
    "Nigeria",
    "africa",
    10,
    0.1799,
    0.2198,
    ["1", "9"],
    ["703", "706", "803", "806", "810", "813", "816", "903", "906"],
  ),
  c(
    "27",
    "South Africa",
    "africa",
    9,
    0.0398,
    0.1196,
    ["10", "11", "21", "31"],
    ["72", "73", "74", "76", "82", "83", "84"],
  ),
  c("20", "Egypt", "africa", 10, 0.1402, 0.1598, ["2", "3"], ["10", "11", "12", "15"]),
  c("971", "United Arab Emirates", "mideast", 9, 0.1802, 0.2196, ["2", "4"], ["50", "52", "54", "55", "56", "58"]),
  c("966", "Saudi Arabia", "mideast", 9, 0.1498, 0.1996, ["11", "12"], ["5"]),
  c("972", "Israel", "mideast", 9, 0.0301, 0.0598, ["2", "3"], ["50", "52", "53", "54", "58"]),
  c("61", "Australia", "oceania", 9, 0.0201, 0.0452, ["2", "3", "7", "8"], ["4"], 2),
  c("64", "New Zealand", "oceania", 9, 0.0302, 0.0798, ["4", "9"], ["21", "22", "27"]),
];

/** Number ranges no card of the demo rates: their calls are stored unrated (satellite, international networks). */
export const UNRATED_RANGES: { prefix: string; length: number; name: string }[] = [
  { prefix: "8816", length: 12, name: "Iridium" },
  { prefix: "8817", length: 12, name: "Iridium" },
  { prefix: "87077", length: 12, name: "Inmarsat" },
  { prefix: "88213", length: 12, name: "International networks" },
  { prefix: "979", length: 12, name: "International premium rate" },
];

export interface Destination {
  prefix: string;
  /** Base sell rate per minute in USD, before a group's markup. */
  rate: number;
  description: string;
  region: Region;
  mobile: boolean;
  /** Full number length in digits (country code included). */
  length: number;
  /** Country name ("US", "CA" in North America; "TF" for toll-free ranges). */
  country: string;
}

/** A stable per-prefix variation (operators price differently), the same on every run. */
function prefixJitter(prefix: string): number {
  let h = 2166136261;
  for (const ch of prefix) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return (h % 1000) / 1000;
}

function expandRange(prefix: string, digits: number): string[] {
  let out = [prefix];
  for (let i = 0; i < digits; i++) out = out.flatMap((p) => Array.from({ length: 10 }, (_, d) => p + d));
  return out;
}

/** Every demo destination: a few thousand prefixes. */
export function buildDestinations(): Destination[] {
  const out: Destination[] = [];
  const seen = new Set<string>();
  const add = (d: Destination) => {
    if (seen.has(d.prefix)) return;
    seen.add(d.prefix);
    out.push(d);
  };

  // North America: a default row for the country code, then each area code.
  add({
    prefix: "1",
    rate: 0.0095,
    description: "USA/Canada",
    region: "nanp",
    mobile: false,
    length: 11,
    country: "US",
  });
  for (const npa of US_NPAS) {
    const rate = 0.0068 + 0.003 * prefixJitter(`1${npa}`);
    add({
      prefix: `1${npa}`,
      rate,
      description: `USA ${npa}`,
      region: "nanp",
      mobile: false,
      length: 11,
      country: "US",
    });
  }
  for (const npa of ["907", "808"]) {
    add({
      prefix: `1${npa}`,
      rate: npa === "907" ? 0.0298 : 0.0198,
      description: npa === "907" ? "USA Alaska" : "USA Hawaii",
      region: "nanp",
      mobile: false,
      length: 11,
      country: "US",
    });
  }
  for (const npa of US_NXX_SPLIT) {
    for (let nxx = 200; nxx < 1000; nxx += 37) {
      const prefix = `1${npa}${nxx}`;
      add({
        prefix,
        rate: 0.0062 + 0.0025 * prefixJitter(prefix),
        description: `USA ${npa}-${nxx}`,
        region: "nanp",
        mobile: false,
        length: 11,
        country: "US",
      });
    }
  }
  for (const npa of CANADA_NPAS) {
    add({
      prefix: `1${npa}`,
      rate: 0.0079 + 0.003 * prefixJitter(`1${npa}`),
      description: `Canada ${npa}`,
      region: "nanp",
      mobile: false,
      length: 11,
      country: "CA",
    });
  }
  for (const [prefix, name, rate] of NANP_OTHER) {
    add({ prefix, rate, description: name, region: "nanp", mobile: false, length: 11, country: name });
  }
  for (const [prefix, name, rate] of TOLL_FREE) {
    add({
      prefix,
      rate,
      description: name,
      region: prefix.startsWith("1") ? "nanp" : "europe",
      mobile: false,
      length: prefix.startsWith("1") ? 11 : prefix.length + 7,
      country: "TF",
    });
  }
  // UK premium rate: expensive, so a few calls there stand out.
  add({
    prefix: "449",
    rate: 0.8495,
    description: "United Kingdom premium rate",
    region: "europe",
    mobile: false,
    length: 12,
    country: "United Kingdom",
  });

  for (const country of COUNTRIES) {
    const length = country.cc.length + country.nsnLength;
    add({
      prefix: country.cc,
      rate: country.fixedRate,
      description: `${country.name} fixed`,
      region: country.region,
      mobile: false,
      length,
      country: country.name,
    });
    for (const prefix of country.fixed) {
      add({
        prefix,
        rate: country.fixedRate * (0.9 + 0.2 * prefixJitter(prefix)),
        description: `${country.name} fixed`,
        region: country.region,
        mobile: false,
        length,
        country: country.name,
      });
    }
    for (const range of country.mobile) {
      for (const prefix of expandRange(range, country.expand)) {
        // Some operators charge noticeably more: a spread of about +-15 %.
        const rate = country.mobileRate * (0.85 + 0.3 * prefixJitter(prefix));
        add({
          prefix,
          rate,
          description: `${country.name} mobile`,
          region: country.region,
          mobile: true,
          length,
          country: country.name,
        });
      }
    }
  }
  return out;
}

/** Billing increment by region (retail): per-second in North America and Asia, 30/6 in Europe, per-minute elsewhere. */
export function retailIncrement(region: Region): Increment {
  switch (region) {
    case "nanp":
    case "asia":
      return { min: 1, interval: 1 };
    case "europe":
      return { min: 30, interval: 6 };
    default:
      return { min: 60, interval: 60 };
  }
}

/** A rate as the rate deck writes it: per minute, 4 decimals. */
export function formatRate(rate: number): string {
  return (Math.round(rate * 10_000) / 10_000).toFixed(4);
}
