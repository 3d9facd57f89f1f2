// "Choose…" beside every typed path (export, back up now, the daily folder,
// the restore's backup file): the button opens the system's save, open or
// folder window with the field's path and a title in the person's words, and
// the chosen path fills the field and is what is sent. A closed window (null)
// or one that cannot open leaves the field as it was.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ComponentChildren } from "preact";

const dialog = vi.hoisted(() => ({
  save: vi.fn<(o: unknown) => Promise<string | null>>(),
  open: vi.fn<(o: unknown) => Promise<string | string[] | null>>(),
}));
vi.mock("@tauri-apps/plugin-dialog", () => dialog);

const exported: string[] = [];
const backups: string[] = [];
const folders: (string | null)[] = [];
const restores: unknown[] = [];

vi.mock("./api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    exportPath: async (format: string) => `/home/p/records.${format}`,
    exportRecords: async (path: string) => {
      exported.push(path);
      return `Written to ${path}.`;
    },
    autoBackup: async () => ({ folder: "/home/p/old", keep: 7, in_config_file: false }),
    backupNow: async (path: string) => {
      backups.push(path);
      return `Backed up to ${path}.`;
    },
    setAutoBackup: async (folder: string | null, keep: number) => {
      folders.push(folder);
      return { folder, keep, in_config_file: false };
    },
    firstRunChoice: async (choice: unknown) => {
      restores.push(choice);
      return { state: "restoring" };
    },
  },
}));

import { ExportForm } from "./ExportForm";
import { StringsContext } from "./i18n";
import { FirstKeyChoice } from "./Restore";
import { Backups } from "./screens/Settings";

const STRINGS = {
  "choose-file": "Choose a file…",
  "choose-folder": "Choose a folder…",
  "choose-failed": "The file window could not open here.",
  "choose-export-title": "Where to write your records",
  "choose-backup-title": "Where to write the backup",
  "choose-folder-title": "The folder for the daily backups",
  "choose-restore-title": "Your backup file",
};

async function show(node: ComponentChildren) {
  render(<StringsContext.Provider value={STRINGS}>{node}</StringsContext.Provider>);
  await act(async () => {});
}

async function click(id: string) {
  await act(async () => {
    fireEvent.click(document.getElementById(id)!);
  });
}

const field = (id: string) => (document.getElementById(id) as HTMLInputElement).value;

afterEach(() => {
  cleanup();
  dialog.save.mockReset();
  dialog.open.mockReset();
  exported.length = 0;
  backups.length = 0;
  folders.length = 0;
  restores.length = 0;
});

describe("the export's save window", () => {
  it("starts at the suggested path, fills the field with the chosen one, and exports there", async () => {
    dialog.save.mockResolvedValue("/home/p/Documents/mine.json");
    await show(<ExportForm />);
    expect(field("export-path")).toBe("/home/p/records.json");
    await click("export-choose");
    expect(dialog.save).toHaveBeenCalledWith({
      title: "Where to write your records",
      defaultPath: "/home/p/records.json",
    });
    expect(dialog.open).not.toHaveBeenCalled();
    expect(field("export-path")).toBe("/home/p/Documents/mine.json");
    await act(async () => {
      fireEvent.submit(document.getElementById("export-path")!.closest("form")!);
    });
    expect(exported).toEqual(["/home/p/Documents/mine.json"]);
  });

  it("leaves the field as it was when the window is closed", async () => {
    dialog.save.mockResolvedValue(null);
    await show(<ExportForm />);
    await click("export-choose");
    expect(dialog.save).toHaveBeenCalledTimes(1);
    expect(field("export-path")).toBe("/home/p/records.json");
    expect(document.getElementById("export-choose-failed")).toBeNull();
  });

  it("says to type the path when the window cannot open, and changes nothing", async () => {
    dialog.save.mockRejectedValue("dialog.save not allowed");
    await show(<ExportForm />);
    await click("export-choose");
    expect(field("export-path")).toBe("/home/p/records.json");
    expect(screen.getByRole("alert").textContent).toBe("The file window could not open here.");
  });
});

describe("Settings' backups", () => {
  it("chooses the file to back up to, and backs up there", async () => {
    dialog.save.mockResolvedValue("/media/usb/keyapp.backup");
    await show(<Backups />);
    await click("backup-file-choose");
    expect(dialog.save).toHaveBeenCalledWith({ title: "Where to write the backup", defaultPath: undefined });
    expect(field("backup-file")).toBe("/media/usb/keyapp.backup");
    await act(async () => {
      fireEvent.submit(document.getElementById("backup-now-form")!);
    });
    expect(backups).toEqual(["/media/usb/keyapp.backup"]);
  });

  it("chooses the daily folder in a folder window, from the folder in force", async () => {
    dialog.open.mockResolvedValue("/media/usb/daily");
    await show(<Backups />);
    expect(field("backup-folder")).toBe("/home/p/old");
    await click("backup-folder-choose");
    expect(dialog.open).toHaveBeenCalledWith({
      title: "The folder for the daily backups",
      defaultPath: "/home/p/old",
      multiple: false,
      directory: true,
    });
    expect(field("backup-folder")).toBe("/media/usb/daily");
    await act(async () => {
      fireEvent.submit(document.getElementById("backup-auto-form")!);
    });
    expect(folders).toEqual(["/media/usb/daily"]);
  });

  it("keeps the folder in force when the folder window is closed", async () => {
    dialog.open.mockResolvedValue(null);
    await show(<Backups />);
    await click("backup-folder-choose");
    expect(dialog.open).toHaveBeenCalledTimes(1);
    expect(field("backup-folder")).toBe("/home/p/old");
  });
});

describe("the restore's backup file", () => {
  it("opens a file (not a folder) and sends the chosen one with the words", async () => {
    dialog.open.mockResolvedValue("/media/usb/keyapp.backup");
    await show(<FirstKeyChoice problem={null} onView={() => {}} />);
    await click("welcome-restore");
    await click("restore-backup-choose");
    expect(dialog.open).toHaveBeenCalledWith({
      title: "Your backup file",
      defaultPath: undefined,
      multiple: false,
      directory: false,
    });
    expect(field("restore-backup")).toBe("/media/usb/keyapp.backup");
    await click("restore-submit");
    expect(restores).toEqual([
      { choice: "restore", words: "", backup: "/media/usb/keyapp.backup", key_seed: false },
    ]);
  });

  it("leaves a typed backup path as it was when the window is closed", async () => {
    dialog.open.mockResolvedValue(null);
    await show(<FirstKeyChoice problem={null} onView={() => {}} />);
    await click("welcome-restore");
    await act(async () => {
      fireEvent.input(document.getElementById("restore-backup")!, { target: { value: "/typed/one.backup" } });
    });
    await click("restore-backup-choose");
    expect(dialog.open).toHaveBeenCalledWith(expect.objectContaining({ defaultPath: "/typed/one.backup" }));
    expect(field("restore-backup")).toBe("/typed/one.backup");
  });
});
