import { describe, expect, it } from "vitest";
import { parseRoute } from "./route";

describe("routes", () => {
  it("reads the consent view, its id, the screens and a notice", () => {
    expect(parseRoute("#/unlock")).toEqual({ view: "unlock" });
    expect(parseRoute("#/consent")).toEqual({ view: "consent", id: undefined });
    expect(parseRoute("#/consent/rq_a%2Fb")).toEqual({ view: "consent", id: "rq_a/b" });
    expect(parseRoute("#/credentials")).toEqual({ view: "credentials", notice: undefined });
    expect(parseRoute("#/requests?notice=no-tray")).toEqual({ view: "requests", notice: "no-tray" });
  });

  it("sends anything unknown to Requests", () => {
    expect(parseRoute("")).toEqual({ view: "requests", notice: undefined });
    expect(parseRoute("#/<img src=x onerror=alert(1)>")).toEqual({ view: "requests", notice: undefined });
    expect(parseRoute("#/sign")).toEqual({ view: "requests", notice: undefined });
  });
});
