export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const r1 = (x: number) => Math.round(x * 10) / 10;
export const summary = (xs: number[]): Summary => ({
  n: xs.length,
  p50: r1(pct(xs, 50)),
  p95: r1(pct(xs, 95)),
  p99: r1(pct(xs, 99)),
  max: r1(Math.max(...xs)),
});
