# Why the key app did not start (crates/keyapp/src/start_words.rs): what
# happened (start-err-*), then what to do about it (start-rec-*). The terminal
# shows them as its two lines, the desktop's window as one paragraph. No code,
# principal id or protocol word is shown; a file, an address or what the system
# said is, because the person acts on it.

start-location-keychain = the OS keychain entry “{ $service }” / “{ $account }”
start-running-process = process { $pid }
start-running-process-url = process { $pid }, agent API { $url }
start-running-unknown = its details are not known yet

## What the system said, when it says something the person can act on.
start-io-permission = permission denied
start-io-not-found = it does not exist
start-io-not-a-folder = part of that path is a file, not a folder
start-io-no-space = the disk is full
start-io-read-only = the disk is read-only
start-io-address-in-use = another program already listens there
start-io-address-not-available = this computer has no such address

start-err-no-data-dir = There is no folder to keep your records in.
start-rec-no-data-dir = Set data_dir in the configuration, or the XDG_DATA_HOME or HOME variable.
start-err-data-dir = The data folder { $path } cannot be used ({ $detail }).
start-rec-data-dir = Check its owner and permissions, or set another data_dir in the configuration.
start-err-already-running = The key app is already running for { $path } ({ $running }).
start-rec-already-running = Use that one, or stop it first.
start-err-already-answering = This key app already answers at { $url } (as { $path } says).
start-rec-already-answering = Use that one, or stop it first.
start-err-store = Your records in { $path } cannot be opened ({ $detail }).
start-rec-store = If another program holds them, close it and start the key app again.
start-err-other-key = The key opened for { $path } is not the one its records were made with, so nothing was started and nothing signed. Another program may have put a key in the keychain, or the records were moved.
start-rec-other-key = Move the records back where they were made, or restore your recovery kit into an empty folder and copy the records in.
start-err-discovery = The [discovery] settings cannot be used ({ $detail }).
start-rec-discovery = Fix them in the configuration, then start the key app again.
start-err-bind-agent-api = The address for assistants, { $addr }, cannot be used ({ $detail }).
start-rec-bind-agent-api = Close the program that uses it, or set another listen address under [agent_api] in the configuration.
start-err-bind-status-api = The address where hosts check your credentials, { $addr }, cannot be used ({ $detail }).
start-rec-bind-status-api = Close the program that uses it, or set another listen address under [status_api] in the configuration.
start-err-control = The key app cannot make its private channel for your commands at { $path } ({ $detail }).
start-rec-control = Check that this folder belongs to you and can be written, then start the key app again.
start-err-runtime-file = { $path } cannot be written ({ $detail }).
start-rec-runtime-file = Check the permissions of the folder it is in, then start the key app again.
start-err-service = The key app could not open what it needs to run ({ $detail }).
start-rec-service = Start it again; if the same happens, its log (run it in a terminal with schcp-keyapp serve) says more.

## The principal key.
start-err-no-session-bus = The OS keychain cannot be reached: this program is not running inside your desktop session ({ $detail }).
start-rec-no-session-bus = Start the key app from your desktop session, or set backend = "file" under [keystore] in the configuration.
start-err-no-secret-service = No keychain service (such as gnome-keyring or KeePassXC) is running, so there is nowhere to keep your key.
start-rec-no-secret-service = Start one, or set backend = "file" under [keystore] in the configuration.
start-err-keychain-locked = Your OS keychain is locked and could not be unlocked.
start-rec-keychain-locked = Unlock it (log in to the desktop, or open your keyring manager), then start the key app again.
start-err-keychain-no-collection = Your OS keychain has no default keyring to keep the key in.
start-rec-keychain-no-collection = Create a “login” keyring with your keyring manager, or set backend = "file" under [keystore] in the configuration.
start-err-keychain-access-denied = Your OS keychain refused the key app access to your key.
start-rec-keychain-access-denied = Allow access when the keychain asks, or in its access settings, then start the key app again.
start-err-keychain-failure = Your OS keychain failed ({ $detail }).
start-rec-keychain-failure = Check that the keychain service works, or set backend = "file" under [keystore] in the configuration.
start-err-unlock-helper-missing = The key app’s unlock helper is not installed at { $path }, so your key stays sealed and the key app does not start.
start-rec-unlock-helper-missing = Install the schcp-keyapp package (from the source tree: sudo scripts/install-unlock-helper).
start-err-no-pkexec = { $path } is not installed, so your computer cannot confirm it is you before your key is unlocked, and the key app does not start.
start-rec-no-pkexec = Install polkit (sudo apt install pkexec polkitd), then start the key app again.
start-err-unlock-refused = Your computer did not confirm it was you, so your key stays sealed and the key app does not start.
start-rec-unlock-refused = Start it again and confirm with your password or fingerprint when asked.
start-err-unlock-cancelled = The request to confirm it was you was dismissed, so your key stays sealed and the key app does not start.
start-rec-unlock-cancelled = Start it again and confirm with your password or fingerprint when asked.
start-err-unlock-failed = Your computer could not confirm it was you ({ $detail }), so your key stays sealed and the key app does not start.
start-rec-unlock-failed = Check that polkit (polkitd) runs, then start the key app again.
start-err-sealed-key-rejected = Your sealed key in { $location } does not open with this computer’s unlock key: it was changed, or sealed elsewhere. Nothing was changed.
start-rec-sealed-key-rejected = Restore that entry (or /var/lib/schcp-keyapp/kek) from a backup. The key app never replaces your key, since that would change who you are to your hosts.
start-err-bare-seed = { $location } holds a key that is not sealed. The key app does not adopt it, since another program may have put it there. Nothing was changed.
start-rec-bare-seed = If it is your own key from an older version, restore it from your recovery kit into an empty folder.
start-err-no-key-for-records = { $location } holds no key, but your records in { $path } were made with one, so no new key was made: it would change who you are to your hosts.
start-rec-no-key-for-records = Move the records back where they were made, or restore your recovery kit into an empty folder and copy the records in.
start-err-corrupt-key = Your key stored in { $location } is damaged ({ $detail }).
start-rec-corrupt-key = Restore it from a backup or your recovery kit. The key app never replaces it with a new key, since that would change who you are to your hosts.
start-err-passphrase-missing = The key file needs a passphrase, but the variable { $var } is unset, empty or unreadable.
start-rec-passphrase-missing = Set { $var } to the passphrase.
start-err-wrong-passphrase = The passphrase does not open { $path }.
start-rec-wrong-passphrase = Start the key app again with the passphrase the key was made with.
start-err-passphrase-fd = The passphrase cannot be read from file descriptor { $fd } named by { $var } ({ $detail }).
start-rec-passphrase-fd = Pass the passphrase on that descriptor (a pipe, for example), or leave { $var } unset.
start-err-empty-passphrase = An empty passphrase cannot protect your key.
start-rec-empty-passphrase = Choose a passphrase that is not empty.
start-err-passphrase-mismatch = The two passphrases typed do not match.
start-rec-passphrase-mismatch = Start the key app again and type the same passphrase twice.
start-err-passphrase-not-given = No passphrase was given, so your key stays locked and the key app does not start.
start-rec-passphrase-not-given = Start it again to type it.
start-err-no-terminal = There is no terminal to ask for the passphrase on ({ $detail }).
start-rec-no-terminal = Pass it on a file descriptor named by { $fd_var }, or in the variable { $var }.
start-err-key-exists = A key is already kept in { $location }, and a restore never replaces one.
start-rec-key-exists = Restore into a new data folder, or keep the key that is there.
start-err-io = { $path } cannot be used ({ $detail }).
start-rec-io = Check that the data folder exists and belongs to the user running the key app.

## Stopped before anything was read: the process would not hold the key where another program could read it.
start-err-traced = Another program ({ $tracer }) is watching the key app as it starts and could read your key from its memory, so the key app did not start.
start-rec-traced = Close that program (a debugger or tracer, such as gdb or strace), then start the key app again.
start-err-sandboxed = The key app runs inside a sandbox (such as Flatpak) where it cannot see whether another program is watching it, so it did not start.
start-rec-sandboxed = Install the key app from its package for your system, outside that sandbox.
start-err-unprotected = The key app could not keep its memory from your other programs ({ $detail }), so it did not start.
start-rec-unprotected = Start it on a standard Linux system, without settings that stop it from protecting its memory.
start-err-unprotected-unread = The key app could not read whether another program is watching it, so it did not start.
start-rec-unprotected-unread = Start it on a standard Linux system, where it can check its own state before it opens your key.
