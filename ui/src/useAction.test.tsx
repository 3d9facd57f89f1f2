// What the person asked for runs, the screen reloads either way, and a refusal
// is kept in the person's words (the command error's message) until a success.
import { act, cleanup, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";
import { useAction } from "./useLoad";

let run: (a: () => Promise<unknown>) => Promise<boolean>;
let reloads = 0;

function Probe() {
  const action = useAction(() => {
    reloads += 1;
  });
  run = action.run;
  return <p data-testid="failure">{action.failure ?? "none"}</p>;
}

afterEach(cleanup);

describe("useAction", () => {
  it("keeps a refusal's message until the next success, reloading after each", async () => {
    reloads = 0;
    render(<Probe />);
    const refusal = { code: "INVALID_STATE", reason: "not_pending", message: "Cette demande n’attend plus de réponse." };
    let ok = true;
    await act(async () => {
      ok = await run(() => Promise.reject(refusal));
    });
    expect(ok).toBe(false);
    expect(screen.getByTestId("failure").textContent).toBe("Cette demande n’attend plus de réponse.");
    expect(reloads).toBe(1);
    await act(async () => {
      ok = await run(() => Promise.resolve());
    });
    expect(ok).toBe(true);
    expect(screen.getByTestId("failure").textContent).toBe("none");
    expect(reloads).toBe(2);
  });
});
