# Les mots de la fenêtre du bureau, en français. Mis en forme en Rust
# (src-tauri, ui_strings) et remis entiers à la fenêtre. Ce à quoi une personne
# consent n'est jamais ici : c'est consent.ftl, affiché tel quel.

app-title = Appli de clés SchCP
nav-label = Sections
nav-requests = Demandes
nav-agents = Assistants
nav-credentials = Autorisations
nav-history = Historique
nav-contacts = Contacts
nav-attestations = Attestations
nav-settings = Réglages

loading = Chargement…
error-prefix = Une erreur s’est produite :
empty-list = Rien pour l’instant.
refresh = Actualiser

requests-heading = En attente de votre réponse
requests-open = Examiner
col-kind = Type
col-agent = Assistant
col-fingerprint = Code
col-age = Demandé
col-expires = Expire
col-status = État
col-actions = Actions
col-audience = Hôtes
col-remaining = Restant
col-when = Quand
col-event = Événement
col-subject = Objet
col-detail = Détail
col-name = Nom
col-principal = Mandant
col-relationship = Relation
col-issuer = Émetteur
col-last-request = Dernière demande

kind-pairing = Jumelage
kind-mandate = Mandat
kind-closed_mandate = Mandat de réservation
kind-management_mandate = Mandat de gestion
kind-meeting_contract = Contrat de rencontre
kind-acceptance = Acceptation
kind-rule = Règle
kind-invitation = Invitation

consent-window-title = Votre consentement — Appli de clés SchCP
consent-heading = Un assistant demande votre consentement
consent-from = De
consent-code = Code de jumelage
consent-code-hint = Vérifiez que votre assistant affiche le même code.
consent-text-label = Ce que vous acceptez
consent-look-twice = À regarder deux fois
consent-approve = Approuver
consent-decline = Refuser
consent-wait = Lisez le texte ci-dessus ; Approuver sera disponible dans un instant.
consent-focus = Cliquez dans cette fenêtre pour activer Approuver.
consent-none = Rien n’attend votre réponse.
consent-gone-withdrawn = L’assistant a retiré cette demande. Rien n’a été signé.
consent-gone-expired = Cette demande a expiré avant votre réponse. Rien n’a été signé.
consent-gone-declined = Cette demande a été refusée. Rien n’a été signé.
consent-gone-approved = Cette demande a déjà été approuvée.
consent-gone-other = Cette demande n’attend plus de réponse. Rien n’a été signé.
consent-done-approved = Approuvé.
consent-done-declined = Refusé. Rien n’a été signé.
consent-close = Fermer
consent-next = Demande suivante
consent-open-main = Ouvrir l’appli de clés
consent-label-edit = Libellé de cette règle (vous pouvez le changer avant d’approuver)
consent-label-save = Utiliser ce libellé

agents-heading = Assistants jumelés
agents-unpair = Dissocier
agents-unpair-confirm = Dissocier cet assistant ? Sa prochaine demande sera refusée.
agents-never = jamais

credentials-heading = Ce que vous avez signé
credentials-revoke = Révoquer
credentials-revoke-confirm = Révoquer cette autorisation ? Les hôtes la refuseront dès maintenant.
credentials-not-revocable = non révocable
credentials-revocation-unpublished = révocation pas encore publiée
credentials-registration-unpublished = pas encore publié au service de statut ; votre assistant le recevra ensuite
credentials-registration-refused = { $why ->
    [namespace_full] refusé définitivement par le service de statut, qui n’a plus de place pour vos justificatifs : les hôtes ne peuvent pas le vérifier, et votre assistant ne l’a pas reçu
   *[other] refusé définitivement par le service de statut, qui ne sert pas votre clé : les hôtes ne peuvent pas le vérifier, et votre assistant ne l’a pas reçu
}
credentials-revocation-refused = { $why ->
    [namespace_full] révoqué ici, mais le service de statut, qui n’a plus de place pour vos justificatifs, a refusé de le publier : les hôtes peuvent le lire comme actif jusqu’à son expiration
   *[other] révoqué ici, mais le service de statut, qui ne sert pas votre clé, a refusé de le publier : les hôtes peuvent le lire comme actif jusqu’à son expiration
}
status-active = active
status-expired = expirée
status-revoked = révoquée
status-pending = en attente
status-approved = approuvée
status-declined = refusée
status-withdrawn = retirée

history-heading = Historique
history-show-text = Afficher le texte
history-hide-text = Masquer le texte

contacts-heading = Contacts
contacts-add = Ajouter un contact
contacts-rename = Renommer
contacts-remove = Retirer
contacts-remove-confirm = Retirer ce contact ?
contacts-save = Enregistrer
contacts-cancel = Annuler

attestations-heading = Attestations
attestations-add = Ajouter une attestation
attestations-jws = Attestation (JWS compact)

settings-heading = Réglages
settings-language = Langue
settings-principal = Votre identifiant de mandant
settings-jwk = Votre clé publique (JWK)
settings-copy = Copier
settings-copied = Copié.
settings-status-base = Adresse d’état que vérifient les hôtes
settings-status-reachable = Les hôtes peuvent vérifier vos justificatifs à cette adresse.
settings-status-this-machine = Seuls les hôtes sur cet ordinateur peuvent vérifier vos justificatifs à cette adresse (hosts_on_this_machine).
settings-status-unreachable = Les hôtes ne peuvent pas vérifier vos justificatifs : cette adresse n’est pas une adresse https publique. Vos justificatifs ne peuvent pas être retirés avant leur expiration, et les limites de réservations partagées entre hôtes sont refusées.
settings-keystore = Où votre clé est gardée
keystore-os = Dans le trousseau de cet ordinateur (Secret Service, Trousseau ou Gestionnaire d’identifiants).
keystore-file = Dans un fichier chiffré protégé par votre phrase de passe.
settings-consent-language = Langue des textes de consentement

confirm-yes = Oui
confirm-no = Non

attention-unverified_identity = L’identité de l’hôte n’est pas vérifiée : il n’est nommé que comme il se nomme lui-même.
attention-price = Un prix est indiqué :
attention-price_limit = Une limite du total tout compris de chaque réservation, pas un prix :
attention-place_away = Le lieu n’est pas à l’adresse de l’hôte :
attention-reconfirmation = On vous demandera de reconfirmer ; si vous ne répondez pas :
attention-answer_by = Votre réponse a une échéance, et une règle par défaut si vous ne la donnez pas :
attention-retention = L’hôte conserve vos données pendant :

no-tray = Aucune zone de notification n’a été trouvée sur ce bureau : l’appli de clés reste dans cette fenêtre. La fermer quitte l’appli.

## Le menu de la zone de notification et les notifications (mis en forme en Rust).
tray-open = Ouvrir l’appli de clés
tray-pending =
    { $count ->
        [0] Rien en attente
        [one] 1 en attente de votre réponse
       *[other] { $count } en attente de votre réponse
    }
tray-quit = Quitter
notify-title = Votre consentement est demandé
notify-pairing = { $agent } demande à se jumeler à votre appli de clés.
notify-request = { $agent } demande votre consentement.

# La phrase de passe du trousseau fichier, demandée dans la fenêtre quand aucun trousseau du système ne répond.
unlock-heading = Déverrouiller votre clé
unlock-create-heading = Choisir une phrase de passe pour votre clé
unlock-intro = Votre clé de signature est conservée dans un fichier chiffré sous votre phrase de passe, car cet ordinateur n’a pas de trousseau utilisable par l’appli. Tapez la phrase de passe pour la déverrouiller.
unlock-create-intro = Cet ordinateur n’a pas de trousseau utilisable par l’appli : votre nouvelle clé de signature sera conservée dans un fichier chiffré sous une phrase de passe. Choisissez-la et tapez-la deux fois. Rien ne peut récupérer la clé sans elle.
unlock-passphrase = Phrase de passe
unlock-confirm = La même phrase de passe, encore
unlock-submit = Déverrouiller
unlock-create-submit = Créer ma clé
unlock-checking = Vérification de la phrase de passe…
unlock-wrong = Cette phrase de passe ne déverrouille pas la clé. Réessayez.
unlock-mismatch = Les deux phrases de passe diffèrent. Tapez-les à nouveau.
unlock-empty = La phrase de passe ne peut pas être vide.
unlock-failed = L’appli n’a pas pu démarrer :

## La fenêtre de consentement : ce que la personne lit ne peut être remplacé ni enfoui.
consent-announce = Une autre demande attend. Elle ne remplacera celle-ci que si vous choisissez de la voir.
consent-announce-show = Voir l’autre demande
## Liaison des hôtes (§2.2) : une entreprise rencontrée à une autre adresse que celle où elle a d’abord été vérifiée.
## host-change et host-change-operator-trust sont mis en forme en Rust, avec des arguments.
host-change = { $host } a d’abord été vérifié à { $bound }. Le { $seen }, un document se réclamant de lui est venu de { $domain } et a été refusé. N’acceptez { $domain } que si l’entreprise vous a dit qu’elle y a déménagé.
host-change-operator-trust = { $host } a d’abord été vérifié à { $bound }. Le { $seen }, un document se réclamant de lui est venu de { $domain }, une plateforme qui s’en porte garante sur sa seule parole, et a été refusé. N’acceptez que si l’entreprise vous a dit qu’elle y a déménagé.
settings-host-changes = Entreprises rencontrées à une autre adresse
settings-host-changes-none = Aucune.
settings-host-accept = Accepter la nouvelle adresse
settings-host-accept-confirm = Accepter la nouvelle adresse? Désormais, les demandes pour cette entreprise devront en venir, et l’ancienne adresse sera refusée.
## Pairing prompts kept coming from one local user (the key app proving itself; bounds per local user).
# Shown beside a pending pairing in `schcp-keyapp pending` and the Requests screen.
pairing-churn = { $count } autres demandes d’appairage venues du même compte de cet ordinateur ont été refusées ou sont restées sans réponse ces { $minutes } dernières minutes ; un programme essaie peut-être de vous lasser. N’approuvez qu’un appairage que vous avez lancé vous-même, et seulement si les codes concordent.
# User verification: what the OS's prompt names, and how a yes was confirmed
# (history and credentials).
verification-pairing-summary = Associer { $agent } (code { $code })
verification-confirmed-polkit = confirmé avec votre mot de passe ou votre empreinte (polkit)

## Typed refusals: a pairing's status, as a refusal names it.
status-unpaired = dissociée

## Recovery kit, records backup and restore (schcp-keyapp recovery-phrase, backup, restore; the Recovery window).
recovery-no-profile = Il n'y a pas encore de profil de l'app de clé dans { $dir }, donc aucune clé à afficher ni à sauvegarder ; lancez l'app de clé une première fois, ou indiquez son dossier de données dans la configuration.
recovery-verification-summary = Afficher votre phrase de récupération
recovery-not-verified = Votre système n'a pas confirmé que c'était vous, la phrase de récupération n'a donc pas été affichée ; relancez la commande et confirmez avec votre mot de passe ou votre empreinte.
recovery-kit-title = Votre phrase de récupération, 24 mots :
recovery-kit-principal = Ces mots restaurent ce principal : { $principal }
recovery-kit-key-seed = Votre clé a été créée avant l'existence des phrases de récupération : ces mots sont donc la clé elle-même. Pour restaurer sans sauvegarde, ajoutez --key-seed.
recovery-kit-keep = Quiconque a ces mots peut agir en votre nom, exactement comme s'il détenait la clé de cet ordinateur. Écrivez-les sur papier et rangez-le avec votre passeport. Ne les photographiez jamais, ne les tapez jamais sur un site ou dans une conversation, et ne les donnez jamais à un assistant.
recovery-backup-written = Vos données ont été écrites dans { $file }, chiffrées : seule votre phrase de récupération les ouvre.
recovery-restore-ask = Tapez votre phrase de récupération (les 24 mots sur une ligne), puis appuyez sur Entrée :
recovery-no-phrase = Aucune phrase de récupération n'a été donnée, rien n'a donc été restauré ; tapez les 24 mots sur une ligne.
recovery-restored = Vous revoilà : { $principal }
recovery-restored-records = Vos données sont restaurées. { $pairings ->
    [0] Aucun assistant n'était jumelé.
    [one] Un jumelage d'assistant est en pause : l'assistant doit redemander le jumelage, et vous le confirmez.
   *[other] { $pairings } jumelages d'assistants sont en pause : chaque assistant doit redemander le jumelage, et vous le confirmez.
}
recovery-page-title = Votre kit de récupération SchCP
recovery-page-date = Établi le { $date }
recovery-page-principal = Ces mots restaurent ce principal :
recovery-page-keep-title = Comment le conserver
recovery-page-restore-title = Comment restaurer
recovery-page-restore = Sur un nouvel ordinateur, installez l'app de clé SchCP, puis lancez schcp-keyapp restore dans un terminal et tapez les mots sur une ligne. Pour retrouver aussi vos données, ajoutez --backup et votre dernier fichier de sauvegarde.
recovery-confirm-ask = Pour vérifier que vous avez noté les mots, tapez le mot { $first } et le mot { $second }.
recovery-confirm-wrong = Ce ne sont pas les mots à ces places. Relisez ce que vous avez noté et réessayez.
