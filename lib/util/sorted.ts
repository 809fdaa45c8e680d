/** Index of the first element of the ascending `xs` that is ≥ `x` (xs.length when none). */
export function firstAtOrAfter(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
