# Les mots de la fenêtre du bureau, en français. Mis en forme en Rust
# (src-tauri, ui_strings) et remis entiers à la fenêtre. Ce à quoi une personne
# consent n’est jamais ici : c’est consent.ftl, affiché tel quel.

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
consent-heading-pairing = Un assistant demande à être associé à votre appli de clés
consent-expires = Expire
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
credential-changed = Un autre programme a modifié une partie de vos registres à son sujet : ce qu’elle permet n’est donc pas affiché ici. Si vous avez un doute, révoquez-la.
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

## Searching History and Credentials, and exporting the records (record_query, export).
search-legend = Rechercher
search-text = Mots à trouver
search-host = Hôte
search-host-any = Tous les hôtes
search-agent = Assistant
search-agent-any = Tous les assistants
search-answer = Ce qu’il en est advenu
search-answer-any = Tout
search-answer-approved = Vous avez approuvé
search-answer-declined = Vous avez refusé
search-answer-expired = Personne n’a répondu à temps
search-answer-withdrawn = L’assistant l’a retirée
search-answer-revoked = Vous l’avez retiré
search-state = État
search-state-any = Tous les états
search-since = Du
search-until = Au
search-submit = Rechercher
search-clear = Effacer
search-none = Rien ne correspond à cette recherche.
load-more = Afficher plus
export-heading = Exporter vos données
export-explain = Une copie de votre historique, de ce que vous avez signé, de vos réservations et de vos contacts, à garder ou à imprimer. Elle ne contient aucune clé : personne ne peut signer en votre nom avec.
export-path = Fichier à écrire (chemin complet)
export-format = Format
export-format-json = Fichier de données (JSON)
export-format-html = Page à imprimer (HTML ; ouvrez-la et imprimez)
export-submit = Exporter
export-done = Vos données ont été écrites dans { $path }.
export-failed = Le fichier n’a pas pu être écrit ({ $detail }) ; choisissez un fichier dans un dossier où vous pouvez écrire.
export-title = Vos données de l’appli de clés
export-made = Exporté { $when }.
export-principal = Votre identifiant de principal :

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
settings-card = Votre carte de contact
settings-card-hint = Donnez-la à un autre foyer pour que son appli de clés vous reconnaisse : il la colle dans Contacts.
settings-card-code = Votre code :
settings-card-code-hint = Quand quelqu’un vous ajoute, lisez-lui ce code, en personne ou par téléphone : le code qu’il voit doit être le même.
settings-card-name = Votre nom sur la carte
settings-status-base = Adresse d’état que vérifient les hôtes
settings-status-reachable = Les hôtes peuvent vérifier vos justificatifs à cette adresse.
settings-status-this-machine = Seuls les hôtes sur cet ordinateur peuvent vérifier vos justificatifs à cette adresse.
settings-status-unreachable = Les hôtes ne peuvent pas vérifier vos justificatifs : cette adresse n’est pas une adresse https publique. Vos justificatifs ne peuvent pas être retirés avant leur expiration, et les limites de réservations partagées entre hôtes sont refusées.
settings-keystore = Où votre clé est gardée
keystore-os = Dans le trousseau de cet ordinateur (Secret Service, Trousseau ou Gestionnaire d’identifiants).
keystore-file = Dans un fichier chiffré protégé par votre phrase de passe.
settings-consent-language = Langue des textes de consentement

confirm-yes = Oui
confirm-no = Non

attention-unverified_identity = L’identité de l’hôte n’est pas vérifiée : il n’est nommé que comme il se nomme lui-même.
attention-price = Vous paierez à l’hôte :
attention-price_limit = Une limite du total tout compris de chaque réservation, pas un prix :
attention-place_away = Le lieu n’est pas à l’adresse de l’hôte :
attention-reconfirmation = Vous devez reconfirmer avant le
attention-answer_by = Votre réponse est attendue avant le
attention-retention = L’hôte conserve vos données pendant

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
notify-pairing = Un assistant nommé « { $agent } » demande à se jumeler à votre appli de clés.
notify-request = Votre assistant « { $agent } » demande votre consentement.
notify-request-what = Votre assistant « { $agent } » demande votre consentement : { $what }
notify-elsewhere-title = Un programme vous demande de confirmer
notify-elsewhere = Un terminal ou un autre programme a demandé à votre ordinateur la confirmation affichée à l’écran. Elle porte sur : { $what }. Si vous ne l’avez pas demandée, annulez-la.

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
unlock-weak-hint = Faible : cette phrase de passe serait facile à deviner. Plus longue, elle est plus sûre, par exemple quatre mots sans rapport.
unlock-strong-hint = Difficile à deviner.
unlock-weak-ask = Cette phrase de passe est faible : quiconque copie votre fichier de clé pourrait la deviner. Choisissez-en une plus longue, ou utilisez quand même celle-ci.
unlock-weak-keep = L’utiliser quand même
unlock-weak-change = En choisir une autre
unlock-failed = L’appli n’a pas pu démarrer :

## La fenêtre de consentement : ce que la personne lit ne peut être remplacé ni enfoui.
consent-announce = Une autre demande attend. Elle ne remplacera celle-ci que si vous choisissez de la voir.
consent-announce-show = Voir l’autre demande
consent-asked-elsewhere = Un terminal ou un autre programme demande en ce moment à votre ordinateur d’approuver ceci, dans la confirmation affichée à l’écran. Si vous ne l’avez pas demandé, annulez-la : rien n’est approuvé tant que vous ne confirmez pas.
consent-asked-elsewhere-other = La confirmation affichée à l’écran ne porte pas sur ce que montre cette fenêtre : un terminal ou un autre programme l’a demandée à votre ordinateur. Si vous ne l’avez pas demandée, annulez-la ; rien n’est approuvé tant que vous ne confirmez pas. Elle porte sur : { $what }
consent-announce-after = Une nouvelle demande attend.
consent-announce-review = L’examiner
consent-ready = Vous pouvez approuver maintenant, à la souris ou avec Tab puis Entrée.
consent-verify = Après « Approuver », votre système vous demande de confirmer que c’est bien vous (mot de passe ou empreinte). Rien n’est signé avant.
consent-terms-heading = Prix et adresse
consent-price = Ligne par ligne
consent-terms-price = Prix
consent-total = Total
consent-address = Adresse
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
verification-confirmed-polkit = confirmé avec votre mot de passe ou votre empreinte

## Typed refusals: a pairing's status, as a refusal names it.
status-unpaired = dissociée

## Look-twice callouts: the kinds a root mandate adds, and the grades.
attention-wide_mandate = Cette permission n’a pas de limite sur certains points :
attention-delegate = L’assistant pourrait transmettre cette permission à un autre assistant.
attention-several_hosts = Une seule permission pour plusieurs hôtes :
attention-long_lived = Elle dure plus d’un jour, jusqu’au
attention-shared_limit = Ses hôtes partagent un seul compte de réservations et demandent à votre appli de clés ce qu’il en reste.
attention-new_host = Vous n’avez jamais eu affaire à cet hôte :
attention-grade-grave = Grave
attention-grade-caution = À vérifier
attention-grade-notice = À savoir

## L’historique en phrases (history_words.rs) : $agent est le nom de l’assistant,
## $what la demande en une ligne, $detail le détail de l’entrée.
history-an-assistant = un assistant
assistant-quoted = « { $name } »
history-a-request = une demande
history-request_created = { $agent } a demandé : { $what }
history-request_approved = Vous avez approuvé : { $what }
history-request_declined = Vous avez refusé : { $what }
history-request_expired = Personne n’a répondu à temps : { $what }
history-request_withdrawn = { $agent } a retiré sa demande : { $what }
history-credential_issued = Signé pour { $agent } : { $what }
history-revoked = Vous avez retiré : { $what }
history-pairing_requested = { $agent } a demandé à être associé à votre appli de clés
history-pairing_approved = Vous avez associé { $agent } à votre appli de clés
history-pairing_declined = Vous avez refusé d’associer { $agent }
history-pairing_expired = { $agent } a demandé à être associé, et personne n’a répondu à temps
history-agent_unpaired = Vous avez dissocié { $agent }
history-contact_added = Vous avez ajouté { $detail } à vos contacts
history-contact_renamed = Vous avez renommé un contact { $detail }
history-contact_removed = Vous avez retiré un contact
history-attestation_added = Vous avez ajouté une attestation vous concernant
history-host_domain_accepted = Vous avez accepté qu’un hôte réponde désormais à { $detail }
history-event-other = L’appli de clés a enregistré un évènement que cette version ne sait pas nommer ; voir Détails.
history-unverified = Un autre programme a écrit ou modifié cette entrée de vos registres ; l’appli de clés ne peut pas s’en porter garante, elle n’est donc pas affichée.
history-details = Détails
col-what = Ce qui s’est passé
col-asked = Ce qui est demandé
col-allows = Ce qu’il permet

## Mes réservations : chaque réservation dont l’appli de clés a un reçu vérifié.
nav-bookings = Mes réservations
bookings-heading = Mes réservations
bookings-upcoming = À venir
bookings-past = Passées
bookings-host-unverified = { $host } (non vérifié)
bookings-title-too-long = Un titre trop long pour être affiché ({ $chars } caractères)
bookings-rests-on = Repose sur ce que vous avez approuvé :
bookings-managed-by = { $agent } peut l’annuler ou la déplacer jusqu’au { $until }.
bookings-manager-ended = { $agent } ne peut plus la modifier.
bookings-stop-manager = Empêcher cet assistant de la modifier
bookings-stop-confirm = Empêcher cet assistant d’annuler ou de déplacer cette réservation ?
bookings-no-manager = Aucun assistant ne peut la modifier.
col-booking = Réservation
col-host = Hôte
col-price = Prix
col-state = État
booking-state-pending_host = en attente de l’hôte
booking-state-tentative = en attente des autres invités
booking-state-confirmed = confirmée
booking-state-declined = refusée par l’hôte
booking-state-expired = caduque
booking-state-cancelled = annulée
booking-state-completed = a eu lieu
booking-state-no_show = manquée

## La pause d’un agent, dans Agents.
agents-cooldown = Ses deux dernières demandes ont été refusées ou sont restées sans réponse : il ne peut plus rien demander avant le { $until }.
agents-lift-cooldown = Le laisser demander à nouveau
history-cooldown_lifted = Vous avez laissé { $agent } demander à nouveau

## Ajouter un contact à partir de la fiche que l’autre personne copie.
contacts-card = Sa fiche de contact ou l’identifiant de son appli de clés
contacts-card-hint = Demandez-lui de la copier depuis les Réglages de son appli de clés. Elle ressemble à : Ellis <urn:schcp:principal:…>. Son nom est rempli pour vous ; vous pouvez le changer.
contacts-code = Son code :
contacts-code-hint = Demandez-lui de vous lire le code sous la carte de contact de ses Réglages, en personne ou par téléphone. Ajoutez-le seulement si c’est le même : un autre code veut dire que la carte collée n’est pas la sienne.
attestations-code = Le code que votre vérificateur vous a donné
attestations-code-hint = Collez-le exactement tel que vous l’avez reçu.
# The person's own yes to a booking on their calendar (§7.7, §7.9)
kind-booking_acceptance = Mon propre oui à une réservation
kind-booking_read = Consultation d’une réservation
## Status service setup (SchCP §3.3): where hosts check the person's credentials,
## setup's refusals, and publishing to a hosted status service. Formatted in Rust.
status-choice-hosted = Les hôtes vérifient vos justificatifs auprès du service de statut hébergé { $base }.
status-choice-own-base = Les hôtes vérifient vos justificatifs à votre propre adresse { $base }.
status-choice-not-now = Vous n’avez pas choisi de service de statut : vos justificatifs renvoient à cet ordinateur ({ $base }).
status-requested = Votre fichier de configuration demande { $base }, mais vous ne l’avez pas confirmé : les justificatifs renvoient donc toujours à { $kept }. Ne le confirmez que si vous avez modifié le fichier vous-même.
status-confirm-summary = Laisser les hôtes vérifier vos justificatifs auprès de { $base }
status-publication-nothing = Rien n’a encore été publié auprès d’un service de statut. { $waiting ->
    [0] Rien n’est en attente.
    [one] Une mise à jour attend d’être publiée.
   *[other] { $waiting } mises à jour attendent d’être publiées.
}
status-publication-reached = La dernière mise à jour est parvenue au service de statut le { $at }. { $waiting ->
    [0] Rien n’est en attente.
    [one] Une mise à jour attend d’être publiée.
   *[other] { $waiting } mises à jour attendent d’être publiées.
}
status-publication-failing = Le service de statut n’a pas répondu { $attempts ->
    [one] à la dernière tentative
   *[other] aux { $attempts } dernières tentatives
} ; l’appli de clés continue d’essayer. { $waiting ->
    [one] Une mise à jour attend d’être publiée.
   *[other] { $waiting } mises à jour attendent d’être publiées.
}
status-refused-register = Le { $at }, le service de statut a refusé de conserver un justificatif : { $why } Les hôtes ne peuvent pas le vérifier, il n’a donc pas été remis à l’assistant.
status-refused-revoke = Le { $at }, le service de statut a refusé de publier un retrait : { $why }
status-refused-full = il détient déjà autant de justificatifs que son exploitant en autorise pour vous.
status-refused-not-allowed = son exploitant ne sert pas votre clé.
status-refused-other = il n’a pas dit pourquoi.
setup-error-not-a-base = « { $url } » n’est pas une adresse web utilisable par l’appli de clés. Saisissez-la en entier, en commençant par https://, sans rien après un ? ou un #.
setup-error-unreachable = Les hôtes ne pourraient pas vérifier vos justificatifs à { $url } : { $why } Choisissez une adresse https publique.
setup-why-not-https = ce n’est pas du https.
setup-why-credentials = elle contient un nom d’utilisateur ou un mot de passe.
setup-why-this-machine = c’est cet ordinateur, que les hôtes ailleurs ne peuvent pas joindre.
setup-why-local-name = { $name } est un nom de votre réseau local seulement.
setup-why-private = { $address } est une adresse de réseau privé ou local.
setup-why-not-a-url = ce n’est pas une adresse web.
setup-error-no-answer = Le service de statut à { $base } n’a pas répondu en https. Vérifiez l’adresse et votre connexion, puis réessayez. Rien n’a été modifié.
setup-error-not-a-status-service = { $base } a répondu, mais pas comme un service de statut SchCP. Vérifiez l’adresse. Rien n’a été modifié.
setup-error-not-allowed = Le service de statut à { $base } ne sert pas votre clé. Demandez à son exploitant de vous ajouter, ou choisissez un autre service. Rien n’a été modifié.
setup-error-full = Le service de statut à { $base } détient déjà autant de justificatifs qu’il en autorise pour vous. Adressez-vous à son exploitant, ou choisissez un autre service. Rien n’a été modifié.
setup-error-refused = Le service de statut à { $base } a refusé les mises à jour de l’appli de clés. Vérifiez l’horloge de cet ordinateur, ou choisissez un autre service. Rien n’a été modifié.
setup-error-config-file = Le fichier de configuration { $path } n’a pas pu être écrit. Vérifiez ses droits. Rien n’a été modifié.
first-run-heading = Où les hôtes vérifieront-ils vos justificatifs ?
first-run-intro = Quand une entreprise vérifie un justificatif que vous avez signé, elle demande à une adresse de statut si vous l’avez retiré. Cet ordinateur se met en veille et change de réseau : les hôtes ne peuvent pas le joindre. Choisissez une adresse toujours en ligne.
first-run-hosted = Un service de statut hébergé
first-run-hosted-help = Saisissez l’adresse https que votre fournisseur vous a donnée. L’appli de clés vérifie qu’elle répond avant de rien changer.
first-run-own-base = Ma propre adresse publique
first-run-own-base-help = Pour qui fait tourner un proxy inverse devant l’API de statut de cette appli de clés : son adresse https publique.
first-run-not-now = Pas maintenant
first-run-not-now-help = Les limites de réservations partagées entre entreprises sont refusées, et les justificatifs ne peuvent pas être retirés avant leur expiration.
first-run-url = Adresse
first-run-save = Enregistrer
first-run-skip = Passer pour l’instant
first-run-saved = Enregistré.
settings-status-setup = Où les hôtes vérifient vos justificatifs
settings-status-change = Modifier
settings-status-confirm-requested = Confirmer cette adresse
settings-status-refused = Refusé par le service de statut
setup-cli-hosted = Un service de statut hébergé (son adresse https)
setup-cli-own-base = Ma propre adresse https publique pour cette appli de clés (je fais tourner un proxy inverse)
setup-cli-not-now = Pas maintenant : les limites de réservations partagées sont refusées, et les justificatifs ne peuvent pas être retirés avant leur expiration
setup-cli-choose = Choisissez 1, 2 ou 3 (toute autre réponse laisse les choses en l’état) :
setup-cli-hosted-url = L’adresse du service de statut :
setup-cli-own-base-url = Votre adresse https publique :
setup-cli-left = Laissé en l’état.
## Unpairing takes back what the assistant holds (SchCP §3.3 check 7).
agents-unpair-revoke-question = { $count ->
    [one] Révoquer aussi l’autorisation qu’il détient ?
   *[other] Révoquer aussi les { $count } autorisations qu’il détient ?
}
agents-unpair-only = Dissocier seulement
agents-unpair-and-revoke = Dissocier et révoquer
agents-unpair-not-revocable = { $kind } : impossible à révoquer, car aucun hôte ne vérifie son statut auprès de cette application de clés. Prend fin d’office le { $until }.
agents-unpair-kept = { $kind } : toujours en vigueur, jusqu’au { $until }.
agents-unpaired = { $count ->
    [0] Dissocié. Rien n’a été révoqué.
    [one] Dissocié. 1 autorisation a été révoquée.
   *[other] Dissocié. { $count } autorisations ont été révoquées.
}
## Recovery kit, records backup and restore (schcp-keyapp recovery-phrase, backup, restore; the Recovery window).
recovery-no-profile = Il n’y a pas encore de profil de l’app de clé dans { $dir }, donc aucune clé à afficher ni à sauvegarder ; lancez l’app de clé une première fois, ou indiquez son dossier de données dans la configuration.
recovery-verification-summary = Afficher votre phrase de récupération
recovery-not-verified = Votre système n’a pas confirmé que c’était vous, la phrase de récupération n’a donc pas été affichée ; relancez la commande et confirmez avec votre mot de passe ou votre empreinte.
recovery-kit-title = Votre phrase de récupération, 24 mots :
recovery-kit-principal = Ces mots restaurent ce principal : { $principal }
recovery-kit-key-seed = Votre clé a été créée avant l’existence des phrases de récupération : ces mots sont donc la clé elle-même. Pour restaurer sans sauvegarde, ajoutez --key-seed.
recovery-kit-keep = Quiconque a ces mots peut agir en votre nom, exactement comme s’il détenait la clé de cet ordinateur. Écrivez-les sur papier et rangez-le avec votre passeport. Ne les photographiez jamais, ne les tapez jamais sur un site ou dans une conversation, et ne les donnez jamais à un assistant.
recovery-backup-written = Vos données ont été écrites dans { $file }, chiffrées : seule votre phrase de récupération les ouvre.
recovery-restore-ask = Tapez votre phrase de récupération (les 24 mots sur une ligne), puis appuyez sur Entrée :
recovery-no-phrase = Aucune phrase de récupération n’a été donnée, rien n’a donc été restauré ; tapez les 24 mots sur une ligne.
recovery-not-a-terminal = La phrase de récupération ne s’affiche que dans une fenêtre de terminal, jamais dans un fichier ou un tube ; lancez la commande dans un terminal, ou ouvrez Réglages › Kit de récupération dans la fenêtre.
recovery-restore-ask-hidden = Tapez votre phrase de récupération (les 24 mots sur une ligne ; rien ne s’affiche pendant la saisie), puis appuyez sur Entrée :
recovery-restored = Vous revoilà : { $principal }
recovery-restored-records = Vos données sont restaurées. { $pairings ->
    [0] Aucun assistant n’était jumelé.
    [one] Un jumelage d’assistant est en pause : l’assistant doit redemander le jumelage, et vous le confirmez.
   *[other] { $pairings } jumelages d’assistants sont en pause : chaque assistant doit redemander le jumelage, et vous le confirmez.
}
recovery-page-title = Votre kit de récupération SchCP
recovery-page-date = Établi le { $date }
recovery-page-principal = Ces mots restaurent ce principal :
recovery-page-keep-title = Comment le conserver
recovery-page-restore-title = Comment restaurer
recovery-page-restore = Sur un nouvel ordinateur, installez l’app de clé SchCP et ouvrez-la, choisissez « { welcome-have-kit } » et tapez les mots. Pour retrouver aussi vos données, choisissez-y votre dernier fichier de sauvegarde. Ou bien, dans un terminal, lancez schcp-keyapp restore et tapez les mots sur une ligne, en ajoutant --backup et votre dernier fichier de sauvegarde pour vos données.
recovery-confirm-ask = Pour vérifier que vous avez noté les mots, tapez le mot { $first } et le mot { $second }.
recovery-confirm-wrong = Ce ne sont pas les mots à ces places. Relisez ce que vous avez noté et réessayez.

## The first run (a short sequence, skippable, and in Settings later), and the
## recovery kit, the backup and the restore in the window.
welcome-heading = Bienvenue dans l’app de clé SchCP
welcome-what = Cette app garde votre clé de signature et répond pour vous quand un assistant demande à agir en votre nom : prendre un rendez-vous, payer un acompte, transmettre vos coordonnées à une entreprise.
welcome-can = Un assistant peut demander. Il ne peut réserver, modifier ou annuler que ce que vous avez approuvé ici, dans les limites que vous avez vues, jusqu’à leur fin.
welcome-cannot = Un assistant ne peut rien signer lui-même, ni voir votre clé, ni lire votre kit de récupération. Chaque oui est le vôtre, confirmé par votre ordinateur.
welcome-key-os = Votre clé est gardée dans le trousseau de cet ordinateur, déverrouillée seulement après que votre ordinateur a confirmé que c’est bien vous.
welcome-key-file = Votre clé est gardée dans un fichier de cet ordinateur, chiffré sous votre phrase secrète.
welcome-next = Suivant
welcome-back = Retour
welcome-skip = Passer la présentation
welcome-done = Terminé
welcome-show-again = Revoir la présentation
welcome-step-about = Ce que fait cette app
welcome-step-key = Où votre clé est gardée
welcome-step-status = Où les hôtes vérifient vos justificatifs
welcome-step-kit = Votre kit de récupération
welcome-new-heading = Est-ce votre première app de clé ?
welcome-new-intro = Créez une nouvelle clé si vous n’avez jamais utilisé l’app de clé SchCP. Si vous l’aviez sur un autre ordinateur, retrouvez votre clé avec votre kit de récupération.
welcome-new-key = Créer une nouvelle clé
welcome-have-kit = J’ai un kit de récupération
restore-heading = Retrouver votre clé
restore-intro = Tapez les 24 mots de votre kit de récupération. Si vous avez un fichier de sauvegarde de vos données, donnez aussi son chemin complet. Rien n’est écrit tant que tout n’est pas vérifié.
restore-words = Vos 24 mots
restore-backup = Fichier de sauvegarde (facultatif)
restore-key-seed = Mon kit dit que ma clé a été créée avant l’existence des phrases de récupération
restore-submit = Restaurer
restore-working = Vérification de vos mots et de votre sauvegarde…
restore-cancel = Créer plutôt une nouvelle clé
restore-refused-phrase = Ces mots ne forment pas une phrase de récupération : vérifiez qu’il y en a 24, chacun écrit comme sur votre kit. Rien n’a été écrit.
restore-refused-wrong-phrase = Ces mots n’ouvrent pas cette sauvegarde. Vérifiez chaque mot avec votre kit de récupération. Rien n’a été écrit.
restore-refused-tampered = Cette sauvegarde a été modifiée ou abîmée après son écriture, donc rien n’en a été restauré. Utilisez une autre sauvegarde. Rien n’a été écrit.
restore-refused-not-backup = Ce fichier n’est pas une sauvegarde de l’app de clé. Choisissez un fichier écrit par la sauvegarde de l’app de clé. Rien n’a été écrit.
restore-refused-newer = Cette sauvegarde vient d’une version plus récente de l’app de clé. Installez-la et restaurez à nouveau. Rien n’a été écrit.
restore-refused-backup-unreadable = Ce fichier de sauvegarde n’a pas pu être lu. Vérifiez son chemin et que vous pouvez le lire. Rien n’a été écrit.
restore-refused-another-principal = Cette sauvegarde contient les données de quelqu’un d’autre, pas celles de ces mots. Utilisez la sauvegarde faite avec ce kit de récupération. Rien n’a été écrit.
restore-refused-records-exist = Cet ordinateur contient déjà des données de l’app de clé, et une restauration ne les remplace jamais. Rien n’a été écrit.
restore-refused-failed = La clé n’a pas pu être gardée sur cet ordinateur, donc rien n’a été restauré. Réessayez.
restore-done-notice = Votre clé et vos données sont de retour. Les assistants appairés sur votre ancien ordinateur sont en pause : chacun doit redemander l’appairage, et vous le confirmez.
kit-heading = Votre kit de récupération
kit-intro = Si cet ordinateur est perdu, ces 24 mots ramènent votre clé sur un autre. Votre ordinateur vous demandera de confirmer que c’est bien vous avant de les montrer.
kit-show = Afficher mon kit de récupération
kit-words = Vos 24 mots
kit-principal = Ces mots ramènent ce principal
kit-key-seed = Votre clé a été créée avant l’existence des phrases de récupération : ces mots sont donc la clé elle-même. Lors d’une restauration, cochez la case qui le dit.
kit-print = Imprimer le kit
kit-confirm-heading = Vérifiez que vous les avez notés
kit-word = Mot
kit-confirm-submit = Vérifier
kit-confirmed = Ce sont les bons mots. Gardez le papier en lieu sûr.
kit-hide = Masquer les mots
kit-later = Plus tard (depuis les Réglages)
recovery-window-not-verified = Votre ordinateur n’a pas confirmé que c’était vous, donc votre kit de récupération n’a pas été affiché. Réessayez et confirmez avec votre mot de passe ou votre empreinte.
recovery-window-main-only = Votre kit de récupération n’est accessible que depuis la fenêtre principale de l’app de clé.
recovery-window-bad-path = Donnez le chemin complet d’un fichier, commençant par /.
recovery-window-bad-folder = Ce dossier n’existe pas ou vous ne pouvez pas y écrire. Choisissez un dossier existant.
recovery-window-keep-range = Gardez entre 1 et 365 sauvegardes.
recovery-window-auto-failed = La sauvegarde automatique n’a pas pu être modifiée. Réessayez.
backup-heading = Sauvegardes de vos données
backup-intro = Une sauvegarde contient vos contacts, justificatifs, historique et réservations, chiffrés : seuls les mots de votre kit de récupération l’ouvrent.
backup-file = Sauvegarder dans ce fichier
backup-now = Sauvegarder maintenant
backup-auto-heading = Chaque jour, automatiquement
backup-auto-folder = Dossier (vide : pas de sauvegarde automatique)
backup-auto-keep = Combien en garder
backup-auto-save = Enregistrer
backup-auto-saved = Enregistré. La sauvegarde automatique a lieu une fois par jour tant que l’app de clé tourne.
backup-auto-off = Pas de sauvegarde automatique.
recovery-window-backup-failed = Vos données n’ont pas pu être écrites dans { $file }. Vérifiez que le dossier existe et que vous pouvez y écrire.
## A lost computer's switch: revoke everything the old computer issued (schcp-keyapp revoke-everything; the Recovery window).
verification-revoke-everything-summary = Révoquer tout ce que votre ancien ordinateur a émis
revoke-everything-records = { $count ->
    [0] Vos données ne contenaient aucune autorisation encore en vigueur.
    [one] La seule autorisation en vigueur dans vos données est révoquée.
   *[other] Les { $count } autorisations en vigueur dans vos données sont révoquées.
}
revoke-everything-service-done = Le service de statut { $base } { $count ->
    [0] n’avait plus rien à révoquer : tout ce qui y était enregistré sous votre clé l’était déjà.
    [one] a révoqué une autorisation enregistrée sous votre clé ; les établissements qui la vérifient lisent « révoquée » dès maintenant.
   *[other] a révoqué { $count } autorisations enregistrées sous votre clé ; les établissements qui les vérifient lisent « révoquée » dès maintenant.
}
revoke-everything-service-unknown = { $count ->
    [one] L’une d’elles n’était pas dans vos données : votre ancien ordinateur l’a émise après votre dernière sauvegarde.
   *[other] { $count } d’entre elles n’étaient pas dans vos données : votre ancien ordinateur les a émises après votre dernière sauvegarde.
}
revoke-everything-service-unreached = Le service de statut { $base } n’a pas pu être joint : ce que votre ancien ordinateur a émis après votre dernière sauvegarde y reste donc en vigueur. Ce que contiennent vos données y sera révoqué dès qu’il répondra ; relancez alors cette commande pour atteindre le reste.
revoke-everything-no-service = Aucun service de statut ne détient vos autorisations : celles que votre ancien ordinateur a émises après votre dernière sauvegarde sont donc introuvables d’ici, et restent valables jusqu’à leur fin, sous 30 jours pour un mandat et 180 pour une règle.
revoke-everything-served-here = { $count ->
    [one] Les établissements vérifiaient celle-ci à l’adresse propre de votre ancien ordinateur : ils ne la liront révoquée que si cette adresse mène maintenant à cet ordinateur-ci :
   *[other] Les établissements vérifiaient ces { $count } autorisations à l’adresse propre de votre ancien ordinateur : ils ne les liront révoquées que si cette adresse mène maintenant à cet ordinateur-ci :
}
revoke-everything-not-revocable = { $count ->
    [one] Celle-ci ne peut pas être reprise, car aucun établissement ne la vérifie ; elle prend fin d’elle-même :
   *[other] Ces { $count } autorisations ne peuvent pas être reprises, car aucun établissement ne les vérifie ; elles prennent fin d’elles-mêmes :
}
revoke-everything-item = • { $kind }, fin : { $end }
revoke-everything-item-hosts = • { $kind } pour { $hosts }, fin : { $end }
revoke-everything-not-verified = Votre système n’a pas confirmé que c’était vous, rien n’a donc été révoqué ; relancez la commande et confirmez avec votre mot de passe ou votre empreinte.
revoke-everything-phrase-no-service = Sans vos données, seul un service de statut peut retrouver ce que votre ancien ordinateur a émis, et aucun n’est indiqué ; ajoutez --hosted et l’adresse de votre service de statut, ou restaurez vos données et lancez schcp-keyapp revoke-everything.
revoke-everything-phrase-records = Les autorisations dont seul votre ancien ordinateur donnait le statut ne sont pas atteintes avec la seule phrase : restaurez votre dernière sauvegarde et lancez schcp-keyapp revoke-everything pour les révoquer aussi.
revoke-everything-phrase-unreached = Le service de statut { $base } n’a pas accepté la révocation, rien n’y a donc été révoqué ; vérifiez l’adresse et votre connexion, puis relancez la commande.

# Choisir un chemin dans la fenêtre de fichiers du système
choose-file = Choisir un fichier…
choose-folder = Choisir un dossier…
choose-failed = La fenêtre de fichiers n’a pas pu s’ouvrir ici ; tapez plutôt le chemin complet dans le champ.
choose-export-title = Où écrire vos données
choose-backup-title = Où écrire la sauvegarde
choose-folder-title = Le dossier des sauvegardes quotidiennes
choose-restore-title = Votre fichier de sauvegarde

# Settings: the public key behind a disclosure
settings-key-details = Détails pour les développeurs

# Les hôtes par leur nom : Mes réservations, et le filtre par hôte des registres quand deux hôtes portent le même nom
host-named = { $name } ({ $domain })
# Contacts: the OS confirms a name the consent text will trust
verification-contact-summary = Nommer un contact { $name }
verification-attestation-summary = Garder l’attestation que { $issuer } a donnée à votre sujet
verification-host-move-summary = Accepter que { $host } se trouve désormais à { $domain }
