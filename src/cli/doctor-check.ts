/** How one doctor check came out: ok, a warning, or a failure that makes `doctor` exit 1. */
export type CheckStatus = "ok" | "warn" | "fail"

/** One line of the doctor's report: what was checked, how it came out and the lines that explain it. */
export type Check = { name: string; status: CheckStatus; detail: string[] }
