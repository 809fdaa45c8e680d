// A tiny external store for browser-only state that lives outside React
// Query (optimistic sends, stream previews, toasts). Module-level, so it
// survives route changes; read in components through useSyncExternalStore.

import { useMemo, useSyncExternalStore } from "react";

export interface Store<T> {
  get(): T;
  /** Replaces the state; listeners run only when it is a different value (Object.is). */
  set(next: T): void;
  update(change: (current: T) => T): void;
  subscribe(listener: () => void): () => void;
  /**
   * The state (or a slice of it) in a component. The server render and
   * hydration see the initial state, as the server never holds any of it.
   * A selector may build a new value: it is recomputed only when the state
   * or the selector changes, so keep it stable (module level or useCallback)
   * when the result feeds a memo.
   */
  useStore(): T;
  useStore<S>(selector: (state: T) => S): S;
}

function identity<T>(value: T): T {
  return value;
}

/** The last answer of `select` for the last input, so React sees a stable snapshot. */
function memoized<T, S>(read: () => T, select: (state: T) => S): () => S {
  let seen = false;
  let input: T;
  let output: S;
  return () => {
    const state = read();
    if (!seen || !Object.is(state, input)) {
      input = state;
      output = select(state);
      seen = true;
    }
    return output;
  };
}

export function createStore<T>(initial: T): Store<T> {
  let state = initial;
  const listeners = new Set<() => void>();

  function get(): T {
    return state;
  }

  function set(next: T): void {
    if (Object.is(next, state)) return;
    state = next;
    for (const listener of [...listeners]) listener();
  }

  function subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  function useStore<S>(selector?: (state: T) => S): S | T {
    const select: (state: T) => S | T = selector ?? identity;
    const [getSnapshot, getServerSnapshot] = useMemo(
      () => [memoized(get, select), memoized(() => initial, select)] as const,
      [select],
    );
    return useSyncExternalStore(subscribe, getSnapshot, getServerSnapshot);
  }

  return {
    get,
    set,
    update: (change) => set(change(state)),
    subscribe,
    useStore: useStore as Store<T>["useStore"],
  };
}
