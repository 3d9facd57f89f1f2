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
cli-rec-verification-underway = Répondez à la confirmation à l’écran ou annulez-la, puis relancez la même commande.
cli-rec-install-polkit = Installez polkit (« sudo apt install polkitd pkexec »), puis relancez la même commande.
cli-err-host-not-met = { $host } n’a pas été rencontré à l’adresse { $domain }.
cli-rec-host-not-met = « schcp-keyapp hosts » liste les entreprises rencontrées à une autre adresse.
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

## Backup and restore (schcp-keyapp backup, restore, revoke-everything --phrase).
cli-err-backup-not-a-backup = { $path } n’est pas une sauvegarde de l’appli de clés : rien n’a été restauré.
cli-rec-backup-not-a-backup = Choisissez un fichier écrit par « schcp-keyapp backup » ou par la sauvegarde automatique.
cli-err-backup-wrong-phrase = Votre phrase de récupération n’ouvre pas { $path } : rien n’a été restauré.
cli-rec-backup-wrong-phrase = Vérifiez chaque mot sur votre kit de récupération, et que cette sauvegarde a bien été faite avec lui.
cli-err-backup-tampered = { $path } a été modifié ou abîmé après son écriture : rien n’en a été restauré.
cli-rec-backup-tampered = Utilisez une autre sauvegarde : une plus ancienne de votre dossier de sauvegardes, ou une copie gardée ailleurs.
cli-err-backup-newer = { $path } a été faite par une version plus récente de l’appli de clés : rien n’a été restauré.
cli-rec-backup-newer = Installez l’appli de clés plus récente, puis restaurez à nouveau.
cli-err-backup-store = Vos données n’ont pas pu être copiées ni lues ({ $detail }) ; rien n’a été écrit.
cli-rec-backup-store = Réessayez ; si cela se reproduit, vérifiez le dossier de données de l’appli de clés.
cli-err-backup-io = Le fichier ou dossier { $path } n’a pas pu être utilisé ({ $detail }) ; rien n’a été écrit.
cli-rec-backup-io = Vérifiez que le dossier existe et que vous pouvez y écrire, puis relancez la commande.
cli-err-phrase-word-count = Une phrase de récupération a 24 mots, et celle-ci en a { $found } : rien n’a été restauré.
cli-err-phrase-unknown-word = Le mot { $position } n’est pas un mot de phrase de récupération : rien n’a été restauré.
cli-err-phrase-checksum = Les mots ne concordent pas : l’un d’eux est mal tapé, ou deux sont inversés ; rien n’a été restauré.
cli-rec-phrase-word-count = Tapez à nouveau les 24 mots de votre kit de récupération, sur une ligne, dans l’ordre.
cli-rec-phrase-unknown-word = Tapez à nouveau les 24 mots de votre kit de récupération, sur une ligne, dans l’ordre.
cli-rec-phrase-checksum = Tapez à nouveau les 24 mots de votre kit de récupération, sur une ligne, dans l’ordre.
cli-err-restore-another-principal = { $path } contient les données d’une autre personne que celle de cette phrase de récupération : rien n’a été restauré.
cli-rec-restore-another-principal = Utilisez la sauvegarde faite avec ce kit de récupération.
cli-err-restore-records-exist = { $path } contient déjà des données, et une restauration ne les remplace jamais.
cli-rec-restore-records-exist = Restaurez dans un nouveau dossier de données : indiquez-le comme data_dir dans un fichier de configuration et passez --config.
cli-err-restore-keystore = Rien n’a été restauré. { $detail }
cli-rec-restore-keystore = { $remedy } Puis restaurez à nouveau.
cli-err-restore-store = Les données restaurées n’ont pas pu être préparées ({ $detail }) : rien n’a été restauré.
cli-rec-restore-store = Réessayez ; si cela se reproduit, la sauvegarde est peut-être abîmée : utilisez-en une autre.
cli-err-restore-io = Le fichier ou dossier { $path } n’a pas pu être utilisé ({ $detail }) : rien n’a été restauré.
cli-rec-restore-io = Vérifiez que le dossier existe et que vous pouvez y écrire, puis relancez la commande.
