// What the screens' tests share: a view shown in the person's words (the
// test's own strings), once its first loads have settled, and a click on a
// button by the words it shows.
import { act, fireEvent, render, screen } from "@testing-library/preact";
import type { ComponentChildren } from "preact";
import { StringsContext } from "../i18n";

/** Renders `view` with `strings` as the window's words, and lets its first loads answer. */
export async function showWith(strings: Record<string, string>, view: ComponentChildren) {
  render(<StringsContext.Provider value={strings}>{view}</StringsContext.Provider>);
  await act(async () => {});
}

/** Clicks what shows `text`, and lets what it sends answer. */
export async function click(text: string) {
  await act(async () => {
    fireEvent.click(screen.getByText(text));
  });
}
