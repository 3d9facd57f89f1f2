// Settings' backups: "Back up now" sends the file named and shows the key
// app's sentence; the daily backup's folder and count are sent as typed (an
// empty folder turns it off); every refusal is the key app's sentence, and
// the fields keep what is in force.
import { cleanup, fireEvent, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AutoBackupView } from "../api";

let auto: AutoBackupView = { folder: null, keep: 7, in_config_file: false };
let refuse: string | null = null;
const backups: string[] = [];
const chosen: [string | null, number][] = [];

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    autoBackup: async () => auto,
    backupNow: async (path: string) => {
      if (refuse) throw { code: "INVALID_REQUEST", reason: "bad_path", message: refuse };
      backups.push(path);
      return `Your records were written to ${path}, encrypted.`;
    },
    setAutoBackup: async (folder: string | null, keep: number) => {
      if (refuse) throw { code: "INVALID_REQUEST", reason: "bad_path", message: refuse };
      chosen.push([folder, keep]);
      auto = { folder, keep, in_config_file: false };
      return auto;
    },
  },
}));

import { click, showWith } from "../testing/screen";
import { Backups } from "./Settings";

const STRINGS = {
  "backup-file": "Back up to this file",
  "backup-now": "Back up now",
  "backup-auto-folder": "Folder",
  "backup-auto-keep": "How many to keep",
  "backup-auto-save": "Save",
  "backup-auto-saved": "Saved.",
  "backup-auto-off": "No automatic backup.",
};

const show = () => showWith(STRINGS, <Backups />);

afterEach(() => {
  cleanup();
  auto = { folder: null, keep: 7, in_config_file: false };
  refuse = null;
  backups.length = 0;
  chosen.length = 0;
});

describe("Backups", () => {
  it("backs up now to the file named, trimmed, and says where", async () => {
    await show();
    fireEvent.input(screen.getByLabelText("Back up to this file"), { target: { value: " /home/me/k.age " } });
    await click("Back up now");
    expect(backups).toEqual(["/home/me/k.age"]);
    expect(screen.getByRole("status").textContent).toBe("Your records were written to /home/me/k.age, encrypted.");
  });

  it("shows a refused backup in the key app's words", async () => {
    refuse = "Give the full path of a file, starting with /.";
    await show();
    fireEvent.input(screen.getByLabelText("Back up to this file"), { target: { value: "k.age" } });
    await click("Back up now");
    expect(screen.getByRole("alert").textContent).toBe(refuse);
    expect(screen.queryByRole("status")).toBeNull();
  });

  it("shows the daily backup in force and sends a new folder and count", async () => {
    auto = { folder: "/backups", keep: 5, in_config_file: true };
    await show();
    expect((screen.getByLabelText("Folder") as HTMLInputElement).value).toBe("/backups");
    expect((screen.getByLabelText("How many to keep") as HTMLInputElement).value).toBe("5");
    fireEvent.input(screen.getByLabelText("Folder"), { target: { value: " /media/usb " } });
    fireEvent.input(screen.getByLabelText("How many to keep"), { target: { value: "10" } });
    await click("Save");
    expect(chosen).toEqual([["/media/usb", 10]]);
    expect(screen.getByRole("status").textContent).toBe("Saved.");
  });

  it("an empty folder turns the daily backup off", async () => {
    auto = { folder: "/backups", keep: 5, in_config_file: false };
    await show();
    fireEvent.input(screen.getByLabelText("Folder"), { target: { value: "" } });
    await click("Save");
    expect(chosen).toEqual([[null, 5]]);
    expect(screen.getByRole("status").textContent).toBe("No automatic backup.");
  });

  it("a refused choice is said and changes nothing", async () => {
    refuse = "That folder does not exist or you may not write there. Choose an existing folder.";
    await show();
    fireEvent.input(screen.getByLabelText("Folder"), { target: { value: "/nowhere" } });
    await click("Save");
    expect(screen.getByRole("alert").textContent).toBe(refuse);
    expect(chosen).toEqual([]);
    expect(document.getElementById("backup-auto-form")?.dataset.folder).toBe("");
  });

  it("a count outside 1 to 365 is not sent", async () => {
    await show();
    fireEvent.input(screen.getByLabelText("How many to keep"), { target: { value: "0" } });
    await click("Save");
    expect(chosen).toEqual([]);
  });
});
