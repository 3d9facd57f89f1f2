# The schcp-keyapp program's errors (src/bin/schcp-keyapp/error.rs), worded
# as rage words its own: one line saying what happened (cli-err-*), one line
# saying what to do about it (cli-rec-*). No code or reason is shown.

cli-error = Erreur : { $what }
cli-remedy = Que faire : { $remedy }

cli-err-config-read = Le fichier de configuration { $path } ne peut pas être lu ({ $detail }).
cli-rec-config-read = Vérifiez le chemin donné à --config, ou omettez --config pour garder les réglages par défaut.
cli-err-config-parse = Le fichier de configuration { $path } n’est pas valide : { $detail }
cli-rec-config-parse = Corrigez ce réglage ; chaque réglage est facultatif, vous pouvez donc retirer celui dont vous n’avez pas besoin.
cli-err-config-invalid = La configuration ne peut pas être utilisée : { $detail }.
cli-rec-config-invalid = Modifiez ce réglage dans le fichier de configuration, puis réessayez.
cli-err-not-running = L’appli de clés n’est pas lancée : rien n’a pu lui être demandé.
cli-rec-not-running = Lancez-la avec « schcp-keyapp serve » ou ouvrez l’application de bureau, puis réessayez.
cli-err-control = L’appli de clés est injoignable à { $path } ({ $detail }).
cli-rec-control = Vérifiez que l’appli de clés tourne sous votre compte, puis réessayez.
cli-err-version = L’appli de clés a répondu d’une façon que ce programme ne comprend pas.
cli-rec-version = Utilisez le programme schcp-keyapp de la même version que l’appli de clés lancée.
cli-err-unknown-id = L’appli de clés n’a rien sous l’identifiant { $id }.
cli-rec-unknown-id = « schcp-keyapp pending » liste ce qui attend votre réponse, et « schcp-keyapp mandates » ce que vous avez approuvé.
cli-err-not-pending = { $id } n’attend plus de réponse : rien n’a été signé.
cli-rec-not-pending = « schcp-keyapp history » indique ce qu’il est devenu.
cli-err-refused = { $what }
cli-rec-refused = Rien n’a été modifié ; « schcp-keyapp --help » indique ce qu’attend chaque commande.
cli-rec-busy = Réessayez dans un instant.
cli-rec-not-verified = Relancez la même commande et confirmez sur votre ordinateur quand il vous le demande.
cli-rec-install-polkit = Installez polkit (« sudo apt install polkitd pkexec »), puis relancez la même commande.
cli-err-host-not-met = { $host } n’a pas été rencontré à l’adresse { $domain }.
cli-rec-host-not-met = « schcp-keyapp hosts » liste les entreprises rencontrées à une autre adresse.
cli-err-no-data-dir = Il n’y a aucun dossier où conserver vos registres.
cli-rec-no-data-dir = Indiquez data_dir dans la configuration, ou définissez la variable XDG_DATA_HOME ou HOME.
cli-err-start = L’appli de clés n’a pas pu démarrer : { $detail }
cli-rec-start = Corrigez ce que le message indique, puis relancez-la.
cli-err-terminal = Ce terminal n’a pas pu être lu ou écrit ({ $detail }).
cli-rec-terminal = Relancez la commande dans un terminal.
cli-err-setup = { $detail }
cli-rec-setup = Relancez `schcp-keyapp setup` avec une autre adresse, ou choisissez « pas maintenant » ; rien n’a été changé.
cli-err-recovery = { $detail }
cli-rec-recovery = Vérifiez la phrase, le fichier et le dossier de données nommés ci-dessus, puis relancez la commande ; rien n’a été écrit.
cli-err-export = L’export n’a pas pu être écrit : { $detail }
cli-rec-export = Indiquez un fichier dans un dossier qui existe et où vous pouvez écrire, puis relancez `schcp-keyapp export`.
cli-err-date = « { $date } » n’est pas une date ; écrivez-la AAAA-MM-JJ, par exemple 2026-12-02.
cli-rec-date = Relancez la commande avec la date écrite ainsi.
