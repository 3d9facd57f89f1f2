# The schcp-keyapp program's errors (src/bin/schcp-keyapp/error.rs), worded
# as rage words its own: one line saying what happened (cli-err-*), one line
# saying what to do about it (cli-rec-*). No code or reason is shown.

cli-error = Error: { $what }
cli-remedy = What to do: { $remedy }

cli-err-config-read = The configuration file { $path } cannot be read ({ $detail }).
cli-rec-config-read = Check the path given to --config, or leave --config out to use the defaults.
cli-err-config-parse = The configuration file { $path } is not valid: { $detail }
cli-rec-config-parse = Correct that setting; every setting is optional, so one you do not need can be removed.
cli-err-config-invalid = The configuration cannot be used: { $detail }.
cli-rec-config-invalid = Change that setting in the configuration file, then try again.
cli-err-not-running = The key app is not running, so nothing could be asked of it.
cli-rec-not-running = Start it with “schcp-keyapp serve”, or open the desktop app, then try again.
cli-err-control = The key app could not be reached at { $path } ({ $detail }).
cli-rec-control = Check that the key app runs as you, then try again.
cli-err-version = The key app answered in a way this program does not understand.
cli-rec-version = Use the schcp-keyapp program of the same version as the running key app.
cli-err-unknown-id = The key app has nothing with the id { $id }.
cli-rec-unknown-id = “schcp-keyapp pending” lists what waits for your answer, and “schcp-keyapp mandates” what you approved.
cli-err-not-pending = { $id } is no longer waiting for an answer, so nothing was signed.
cli-rec-not-pending = “schcp-keyapp history” tells what became of it.
cli-err-refused = { $what }
cli-rec-refused = Nothing was changed; “schcp-keyapp --help” says what each command takes.
cli-rec-busy = Try again in a moment.
cli-rec-not-verified = Run the same command again, and confirm on your computer when it asks.
cli-rec-verification-underway = Answer or cancel the confirmation on your screen, then run the same command again.
cli-rec-install-polkit = Install polkit (“sudo apt install polkitd pkexec”), then run the same command again.
cli-err-host-not-met = { $host } was not met at { $domain }.
cli-rec-host-not-met = “schcp-keyapp hosts” lists the businesses met at another address.
cli-err-start = The key app could not start: { $detail }
cli-rec-start = Correct what the message names, then start it again.
cli-err-terminal = This terminal could not be read or written ({ $detail }).
cli-rec-terminal = Run the command again in a terminal.
cli-err-setup = { $detail }
cli-rec-setup = Run `schcp-keyapp setup` again with another address, or choose "not now"; nothing was changed.
cli-err-recovery = { $detail }
cli-rec-recovery = Check the phrase, the file and the data directory named above, then run the command again; nothing was written.
cli-err-export = The export could not be written: { $detail }
cli-rec-export = Name a file in a folder that exists and that you can write to, then run `schcp-keyapp export` again.
cli-err-date = “{ $date }” is not a day; write it as YYYY-MM-DD, e.g. 2026-12-02.
cli-rec-date = Run the command again with the day written that way.

## Backup and restore (schcp-keyapp backup, restore, revoke-everything --phrase).
cli-err-backup-not-a-backup = { $path } is not a key app backup, so nothing was restored.
cli-rec-backup-not-a-backup = Choose a file that “schcp-keyapp backup” or the automatic backup wrote.
cli-err-backup-wrong-phrase = Your recovery phrase does not open { $path }, so nothing was restored.
cli-rec-backup-wrong-phrase = Check each word against your recovery kit, and that this backup was made with it.
cli-err-backup-tampered = { $path } was changed or damaged after it was written, so nothing was restored from it.
cli-rec-backup-tampered = Use another backup: an older one from your backup folder, or a copy you keep elsewhere.
cli-err-backup-newer = { $path } was made by a newer version of the key app, so nothing was restored.
cli-rec-backup-newer = Install the newer key app, then restore again.
cli-err-backup-store = Your records could not be copied or read ({ $detail }); nothing was written.
cli-rec-backup-store = Try again; if it happens again, check the key app's data directory.
cli-err-backup-io = The file or folder { $path } could not be used ({ $detail }); nothing was written.
cli-rec-backup-io = Check that the folder exists and that you may write there, then run the command again.
cli-err-phrase-word-count = A recovery phrase has 24 words, and this one has { $found }, so nothing was restored.
cli-err-phrase-unknown-word = Word { $position } is not a recovery phrase word, so nothing was restored.
cli-err-phrase-checksum = The words do not add up: one of them is mistyped, or two are swapped, so nothing was restored.
cli-rec-phrase-word-count = Type the 24 words of your recovery kit again, on one line, in order.
cli-rec-phrase-unknown-word = Type the 24 words of your recovery kit again, on one line, in order.
cli-rec-phrase-checksum = Type the 24 words of your recovery kit again, on one line, in order.
cli-err-restore-another-principal = { $path } holds someone else's records than this recovery phrase's, so nothing was restored.
cli-rec-restore-another-principal = Use the backup made with this recovery kit.
cli-err-restore-records-exist = { $path } already holds records, and a restore never replaces them.
cli-rec-restore-records-exist = Restore into a new data directory: name it as data_dir in a configuration file and pass --config.
cli-err-restore-keystore = Nothing was restored. { $detail }
cli-rec-restore-keystore = { $remedy } Then restore again.
cli-err-restore-store = The restored records could not be prepared ({ $detail }), so nothing was restored.
cli-rec-restore-store = Try again; if it happens again, the backup may be damaged: use another one.
cli-err-restore-io = The file or folder { $path } could not be used ({ $detail }), so nothing was restored.
cli-rec-restore-io = Check that the folder exists and that you may write there, then run the command again.
