import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { createStore, type Store } from "./store";

describe("createStore", () => {
  it("get/set/update, and listeners run once per change", () => {
    const store = createStore({ count: 0 });
    const listener = vi.fn();
    store.subscribe(listener);

    store.set({ count: 1 });
    store.update((s) => ({ count: s.count + 1 }));
    expect(store.get()).toEqual({ count: 2 });
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it("does not notify when the state is the same value", () => {
    const initial = Object.freeze([1, 2]);
    const store = createStore<readonly number[]>(initial);
    const listener = vi.fn();
    store.subscribe(listener);

    store.set(initial);
    store.update((s) => s);
    expect(listener).not.toHaveBeenCalled();
    expect(store.get()).toBe(initial);
  });

  it("stops notifying after unsubscribe, also when a listener unsubscribes another mid-notification", () => {
    const store = createStore(0);
    const second = vi.fn();
    let stopSecond = () => {};
    const first = vi.fn(() => stopSecond());
    store.subscribe(first);
    stopSecond = store.subscribe(second);

    store.set(1); // both were subscribed when it changed
    store.set(2);
    expect(first).toHaveBeenCalledTimes(2);
    expect(second).toHaveBeenCalledTimes(1);
  });

  it("useStore renders the initial state on the server, whatever the state is now", () => {
    const store = createStore<readonly string[]>([]);
    store.set(["from the browser"]);

    function Count({ source }: { source: Store<readonly string[]> }) {
      const all = source.useStore();
      const first = source.useStore((s) => s[0] ?? "none");
      return createElement("p", null, `${all.length}:${first}`);
    }
    expect(renderToStaticMarkup(createElement(Count, { source: store }))).toBe("<p>0:none</p>");
  });
});
