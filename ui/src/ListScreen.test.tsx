// The frame every list screen shares: the section is named by its heading, a
// failure is an alert, an empty list says so, and the rows sit under the
// column headings in the order given, as text.
import { cleanup, render, screen, within } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";
import { StringsContext } from "./i18n";
import { ListScreen } from "./ListScreen";

const STRINGS = {
  "things-heading": "Things",
  "col-a": "First",
  "col-b": "Second",
  "empty-list": "Nothing here yet.",
  "error-prefix": "Something went wrong:",
};

type Thing = { id: string; a: string; b: string };

function show(data: Thing[] | null, error: string | null = null) {
  return render(
    <StringsContext.Provider value={STRINGS}>
      <ListScreen
        name="things"
        data={data}
        error={error}
        columns={["col-a", "col-b"]}
        row={(t: Thing) => (
          <tr key={t.id}>
            <td>{t.a}</td>
            <td>{t.b}</td>
          </tr>
        )}
      >
        <form aria-label="add a thing" />
      </ListScreen>
    </StringsContext.Provider>,
  );
}

afterEach(cleanup);

describe("ListScreen", () => {
  it("names the section by its heading and puts rows under the headings in order", () => {
    show([
      { id: "1", a: "<b>x</b>", b: "y" },
      { id: "2", a: "z", b: "w" },
    ]);
    const section = screen.getByRole("region", { name: "Things" });
    const headers = within(section).getAllByRole("columnheader").map((h) => h.textContent);
    expect(headers).toEqual(["First", "Second"]);
    const rows = within(section).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(["<b>x</b>y", "zw"]);
    expect(section.querySelector("b")).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByText("Nothing here yet.")).toBeNull();
    expect(screen.getByRole("form", { name: "add a thing" })).toBeTruthy();
  });

  it("says an empty list is empty, with no table", () => {
    show([]);
    expect(screen.getByText("Nothing here yet.")).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("shows a failure as an alert beside what is loaded, and nothing before the data comes", () => {
    show(null, "Your records are busy for a moment; try again.");
    expect(screen.getByRole("alert").textContent).toBe(
      "Something went wrong: Your records are busy for a moment; try again.",
    );
    expect(screen.queryByRole("table")).toBeNull();
    expect(screen.queryByText("Nothing here yet.")).toBeNull();
  });
});
