# Pourquoi l’appli de clés n’a pas démarré (crates/keyapp/src/start_words.rs) :
# ce qui s’est passé (start-err-*), puis que faire (start-rec-*). Le terminal
# les montre comme ses deux lignes, la fenêtre du bureau en un paragraphe.

start-location-keychain = l’entrée « { $service } » / « { $account } » du trousseau de l’ordinateur
start-running-process = processus { $pid }
start-running-process-url = processus { $pid }, API des assistants { $url }
start-running-unknown = on n’en sait pas encore plus

## Ce que le système a dit, quand la personne peut agir en conséquence.
start-io-permission = accès refusé
start-io-not-found = il n’existe pas
start-io-not-a-folder = une partie de ce chemin est un fichier, pas un dossier
start-io-no-space = le disque est plein
start-io-read-only = le disque est en lecture seule
start-io-address-in-use = un autre programme y écoute déjà
start-io-address-not-available = cet ordinateur n’a pas cette adresse

start-err-no-data-dir = Il n’y a aucun dossier où conserver vos registres.
start-rec-no-data-dir = Indiquez data_dir dans la configuration, ou définissez la variable XDG_DATA_HOME ou HOME.
start-err-data-dir = Le dossier de données { $path } ne peut pas être utilisé ({ $detail }).
start-rec-data-dir = Vérifiez son propriétaire et ses droits, ou indiquez un autre data_dir dans la configuration.
start-err-already-running = L’appli de clés est déjà lancée pour { $path } ({ $running }).
start-rec-already-running = Utilisez celle-là, ou arrêtez-la d’abord.
start-err-already-answering = Cette appli de clés répond déjà à { $url } (d’après { $path }).
start-rec-already-answering = Utilisez celle-là, ou arrêtez-la d’abord.
start-err-store = Vos registres dans { $path } ne peuvent pas être ouverts ({ $detail }).
start-rec-store = Si un autre programme les tient ouverts, fermez-le et relancez l’appli de clés.
start-err-other-key = La clé ouverte pour { $path } n’est pas celle avec laquelle ses registres ont été faits : rien n’a été lancé ni signé. Un autre programme a peut-être mis une clé dans le trousseau, ou les registres ont été déplacés.
start-rec-other-key = Remettez les registres là où ils ont été faits, ou restaurez votre kit de récupération dans un dossier vide et copiez-y les registres.
start-err-discovery = Les réglages [discovery] ne peuvent pas être utilisés ({ $detail }).
start-rec-discovery = Corrigez-les dans la configuration, puis relancez l’appli de clés.
start-err-bind-agent-api = L’adresse des assistants, { $addr }, ne peut pas être utilisée ({ $detail }).
start-rec-bind-agent-api = Fermez le programme qui l’utilise, ou indiquez une autre adresse d’écoute sous [agent_api] dans la configuration.
start-err-bind-status-api = L’adresse où les entreprises vérifient vos autorisations, { $addr }, ne peut pas être utilisée ({ $detail }).
start-rec-bind-status-api = Fermez le programme qui l’utilise, ou indiquez une autre adresse d’écoute sous [status_api] dans la configuration.
start-err-control = L’appli de clés ne peut pas ouvrir son canal privé pour vos commandes à { $path } ({ $detail }).
start-rec-control = Vérifiez que ce dossier vous appartient et qu’on peut y écrire, puis relancez l’appli de clés.
start-err-runtime-file = { $path } ne peut pas être écrit ({ $detail }).
start-rec-runtime-file = Vérifiez les droits du dossier qui le contient, puis relancez l’appli de clés.
start-err-service = L’appli de clés n’a pas pu ouvrir ce qu’il lui faut pour fonctionner ({ $detail }).
start-rec-service = Relancez-la ; si cela se reproduit, son journal (lancez-la dans un terminal avec schcp-keyapp serve) en dit plus.

## La clé du titulaire.
start-err-no-session-bus = Le trousseau de l’ordinateur est injoignable : ce programme ne tourne pas dans votre session de bureau ({ $detail }).
start-rec-no-session-bus = Lancez l’appli de clés depuis votre session de bureau, ou indiquez backend = "file" sous [keystore] dans la configuration.
start-err-no-secret-service = Aucun service de trousseau (comme gnome-keyring ou KeePassXC) ne tourne : il n’y a nulle part où garder votre clé.
start-rec-no-secret-service = Lancez-en un, ou indiquez backend = "file" sous [keystore] dans la configuration.
start-err-keychain-locked = Le trousseau de l’ordinateur est verrouillé et n’a pas pu être déverrouillé.
start-rec-keychain-locked = Déverrouillez-le (connectez-vous au bureau, ou ouvrez votre gestionnaire de trousseaux), puis relancez l’appli de clés.
start-err-keychain-no-collection = Le trousseau de l’ordinateur n’a pas de trousseau par défaut où garder la clé.
start-rec-keychain-no-collection = Créez un trousseau « login » avec votre gestionnaire de trousseaux, ou indiquez backend = "file" sous [keystore] dans la configuration.
start-err-keychain-access-denied = Le trousseau de l’ordinateur a refusé à l’appli de clés l’accès à votre clé.
start-rec-keychain-access-denied = Autorisez l’accès quand le trousseau le demande, ou dans ses réglages d’accès, puis relancez l’appli de clés.
start-err-keychain-failure = Le trousseau de l’ordinateur a échoué ({ $detail }).
start-rec-keychain-failure = Vérifiez que le service de trousseau fonctionne, ou indiquez backend = "file" sous [keystore] dans la configuration.
start-err-unlock-helper-missing = L’outil de déverrouillage de l’appli de clés n’est pas installé à { $path } : votre clé reste scellée et l’appli de clés ne démarre pas.
start-rec-unlock-helper-missing = Installez le paquet schcp-keyapp (depuis les sources : sudo scripts/install-unlock-helper).
start-err-no-pkexec = { $path } n’est pas installé : votre ordinateur ne peut pas confirmer que c’est bien vous avant de déverrouiller votre clé, et l’appli de clés ne démarre pas.
start-rec-no-pkexec = Installez polkit (sudo apt install pkexec polkitd), puis relancez l’appli de clés.
start-err-unlock-refused = Votre ordinateur n’a pas confirmé que c’était bien vous : votre clé reste scellée et l’appli de clés ne démarre pas.
start-rec-unlock-refused = Relancez-la et confirmez avec votre mot de passe ou votre empreinte quand on vous le demande.
start-err-unlock-cancelled = La demande de confirmer que c’était bien vous a été fermée : votre clé reste scellée et l’appli de clés ne démarre pas.
start-rec-unlock-cancelled = Relancez-la et confirmez avec votre mot de passe ou votre empreinte quand on vous le demande.
start-err-unlock-failed = Votre ordinateur n’a pas pu confirmer que c’était bien vous ({ $detail }) : votre clé reste scellée et l’appli de clés ne démarre pas.
start-rec-unlock-failed = Vérifiez que polkit (polkitd) tourne, puis relancez l’appli de clés.
start-err-sealed-key-rejected = Votre clé scellée dans { $location } ne s’ouvre pas avec la clé de déverrouillage de cet ordinateur : elle a été modifiée, ou scellée ailleurs. Rien n’a été changé.
start-rec-sealed-key-rejected = Restaurez cette entrée (ou /var/lib/schcp-keyapp/kek) depuis une sauvegarde. L’appli de clés ne remplace jamais votre clé, car cela changerait qui vous êtes pour vos entreprises.
start-err-bare-seed = { $location } contient une clé qui n’est pas scellée. L’appli de clés ne l’adopte pas, car un autre programme a pu la mettre là. Rien n’a été changé.
start-rec-bare-seed = Si c’est votre propre clé d’une version plus ancienne, restaurez-la depuis votre kit de récupération dans un dossier vide.
start-err-no-key-for-records = { $location } ne contient aucune clé, mais vos registres dans { $path } ont été faits avec une : aucune nouvelle clé n’a été créée, car elle changerait qui vous êtes pour vos entreprises.
start-rec-no-key-for-records = Remettez les registres là où ils ont été faits, ou restaurez votre kit de récupération dans un dossier vide et copiez-y les registres.
start-err-corrupt-key = Votre clé conservée dans { $location } est abîmée ({ $detail }).
start-rec-corrupt-key = Restaurez-la depuis une sauvegarde ou votre kit de récupération. L’appli de clés ne la remplace jamais par une nouvelle, car cela changerait qui vous êtes pour vos entreprises.
start-err-passphrase-missing = Le fichier de clé demande une phrase de passe, mais la variable { $var } est absente, vide ou illisible.
start-rec-passphrase-missing = Donnez la phrase de passe dans { $var }.
start-err-wrong-passphrase = La phrase de passe n’ouvre pas { $path }.
start-rec-wrong-passphrase = Relancez l’appli de clés avec la phrase de passe choisie à la création de la clé.
start-err-passphrase-fd = La phrase de passe ne peut pas être lue sur le descripteur de fichier { $fd } nommé par { $var } ({ $detail }).
start-rec-passphrase-fd = Passez la phrase de passe sur ce descripteur (un tube, par exemple), ou retirez { $var }.
start-err-empty-passphrase = Une phrase de passe vide ne peut pas protéger votre clé.
start-rec-empty-passphrase = Choisissez une phrase de passe qui ne soit pas vide.
start-err-passphrase-mismatch = Les deux phrases de passe tapées ne sont pas les mêmes.
start-rec-passphrase-mismatch = Relancez l’appli de clés et tapez deux fois la même phrase de passe.
start-err-passphrase-not-given = Aucune phrase de passe n’a été donnée : votre clé reste verrouillée et l’appli de clés ne démarre pas.
start-rec-passphrase-not-given = Relancez-la pour la taper.
start-err-no-terminal = Il n’y a pas de terminal où demander la phrase de passe ({ $detail }).
start-rec-no-terminal = Passez-la sur un descripteur de fichier nommé par { $fd_var }, ou dans la variable { $var }.
start-err-key-exists = Une clé est déjà conservée dans { $location }, et une restauration n’en remplace jamais une.
start-rec-key-exists = Restaurez dans un nouveau dossier de données, ou gardez la clé qui s’y trouve.
start-err-io = { $path } ne peut pas être utilisé ({ $detail }).
start-rec-io = Vérifiez que le dossier de données existe et appartient à l’utilisateur qui lance l’appli de clés.

## Arrêt avant toute lecture : le processus ne garde pas la clé là où un autre programme pourrait la lire.
start-err-traced = Un autre programme ({ $tracer }) observe l’appli de clés pendant son démarrage et pourrait lire votre clé dans sa mémoire : l’appli de clés n’a pas démarré.
start-rec-traced = Fermez ce programme (un débogueur ou un traceur, comme gdb ou strace), puis relancez l’appli de clés.
start-err-sandboxed = L’appli de clés tourne dans un bac à sable (comme Flatpak) où elle ne peut pas voir si un autre programme l’observe : elle n’a pas démarré.
start-rec-sandboxed = Installez l’appli de clés depuis son paquet pour votre système, hors de ce bac à sable.
start-err-unprotected = L’appli de clés n’a pas pu protéger sa mémoire de vos autres programmes ({ $detail }) : elle n’a pas démarré.
start-rec-unprotected = Lancez-la sur un système Linux standard, sans réglage qui l’empêche de protéger sa mémoire.
start-err-unprotected-unread = L’appli de clés n’a pas pu vérifier si un autre programme l’observe : elle n’a pas démarré.
start-rec-unprotected-unread = Lancez-la sur un système Linux standard, où elle peut vérifier son propre état avant d’ouvrir votre clé.
