# Pourquoi l’appli de clés a refusé ce que la personne a fait dans une fenêtre
# (keyapp::ui_words::refusal). Mêmes identifiants que locales/en/refusals.ftl.

refusal-not_pending = Cette demande n’attend plus de réponse : elle est { $status }. Rien n’a été signé.
refusal-not_found = Cet élément n’est plus dans vos registres ; il a peut-être été supprimé entre-temps.
refusal-busy = Vos registres sont occupés un instant ; réessayez.
refusal-bad_label = Le libellé d’une règle compte de 1 à { $max } caractères de texte simple, sur une seule ligne.
refusal-not_a_rule = Seul le libellé d’une règle peut être modifié.
refusal-bad_name = Le nom d’un contact compte de 1 à { $max } caractères, sans caractère de contrôle.
refusal-bad_principal = Un contact est désigné par un identifiant de principal commençant par { $prefix }.
refusal-not_revocable = Ce justificatif ne peut pas être révoqué : aucun hôte ne pourrait l’apprendre. Il prend fin de lui-même à son expiration.
refusal-wrong_subject = Cette attestation concerne quelqu’un d’autre ; elle n’a pas été ajoutée.
## An attestation the person adds is checked as a host that trusts its verifier would check it (SchCP §7.5).
refusal-not_an_attestation = Ce n’est pas un code de vérificateur que l’appli de clés sait lire : vérifiez que vous l’avez collé en entier, et rien d’autre. Rien n’a été ajouté.
refusal-attestation_too_large = C’est bien plus long qu’un code de vérificateur ; rien n’a été ajouté.
refusal-unknown_attester = Aucun commerce au sujet duquel votre assistant vous a sollicité ne fait encore confiance à ce vérificateur : l’appli de clés ne peut pas vérifier son code. Rien n’a été ajouté ; ajoutez-le de nouveau quand un commerce qui lui fait confiance aura été demandé.
refusal-attestation_forged = Ce code n’a pas été signé par le vérificateur qu’il nomme ; il n’a pas été ajouté.
refusal-attestation_not_yet_valid = Ce code est daté d’après maintenant ; il n’a pas été ajouté. Vérifiez l’horloge de votre ordinateur, ou demandez un nouveau code à votre vérificateur.
refusal-attestation_expired = Ce code a expiré ; il n’a pas été ajouté. Demandez-en un nouveau à votre vérificateur.
refusal-attestation_held = Ce code fait déjà partie de vos attestations ; rien n’a été ajouté.
refusal-verification = Ceci n’a pas pu être vérifié ; rien n’a été modifié.
refusal-other = L’appli de clés n’a pas pu le faire, et rien n’a été changé. Si cela se reproduit, fermez l’appli de clés et rouvrez-la.
refusal-not_asking = L’appli de clés ne demande pas de phrase de passe en ce moment.
refusal-unknown_language = L’appli de clés ne parle que l’anglais et le français.

# User verification: the OS did not confirm that the person gave this yes.
refusal-user_not_verified = Votre ordinateur n’a pas confirmé que c’était bien vous : rien n’a été approuvé ni signé. La demande attend toujours votre réponse.
refusal-verification_cancelled = La confirmation sur votre ordinateur a été annulée : rien n’a été approuvé ni signé. La demande attend toujours votre réponse.
refusal-verification_timed_out = La confirmation sur votre ordinateur n’a pas reçu de réponse à temps : rien n’a été approuvé ni signé. La demande attend toujours votre réponse.
refusal-verification_unavailable = Votre ordinateur ne peut pas confirmer que c’est bien vous (polkit n’est pas lancé ou pas installé) : rien n’a été approuvé ni signé. Installez-le avec « sudo apt install polkitd pkexec », puis réessayez.
refusal-verification_underway = Votre ordinateur vous demande déjà de confirmer autre chose : rien n’a été approuvé ici. Répondez d’abord à cette demande, ou annulez-la si vous ne l’avez pas faite, puis réessayez.
refusal-verification-underway-window = Votre ordinateur vous demande de confirmer une action que l’appli de clés a elle-même demandée (dans sa fenêtre, ou à son démarrage) : rien n’a été approuvé ici. Répondez-y d’abord, puis réessayez. Cette confirmation porte sur : { $what }
refusal-verification-underway-window-unnamed = Votre ordinateur vous demande de confirmer une action que l’appli de clés a elle-même demandée (dans sa fenêtre, ou à son démarrage) : rien n’a été approuvé ici. Répondez-y d’abord, puis réessayez.
refusal-verification-underway-program = La confirmation à l’écran n’est pas pour ceci : un terminal ou un autre programme l’a demandée. Si vous ne l’avez pas demandée, annulez-la ; rien n’a été approuvé ici. Cette confirmation porte sur : { $what }
## Ce que la personne lit ne peut être déguisé ni enfoui.
refusal-text_too_long = Ce texte serait trop long pour se lire sur un écran ; il n’a donc pas été affiché, et rien n’a été changé ni signé.
## Les hôtes ne peuvent pas lire l’adresse d’état de l’application de clés (SchCP §3.3, §5.8).
refusal-status_unreachable = Les hôtes ne peuvent pas joindre l’adresse d’état de cette application de clés, qui ne peut donc pas tenir une limite de réservations partagée entre hôtes; indiquez un service de statut hébergé ([status_api] hosted) ou une adresse https publique ([status_api] public_base) dans sa configuration.

## What the records do not hold, and what in them cannot be read (keyapp::ui_words::not_found_id, stored_id).
refusal-not_found-request = Cette demande n’est pas dans vos registres ; elle a peut-être été supprimée entre-temps.
refusal-not_found-rule_request = Cette demande ne porte pas sur une règle : elle n’a pas de libellé à modifier.
refusal-not_found-credential = Ce justificatif n’est pas dans vos registres.
refusal-not_found-contact = Ce contact n’est pas dans vos registres ; il a peut-être été supprimé entre-temps.
refusal-not_found-host_domain_change = Cette entreprise n’a jamais été rencontrée à cette adresse : il n’y a pas de déménagement à accepter.
refusal-not_found-pairing = Cet appairage n’est pas dans vos registres ; il a peut-être expiré entre-temps.
refusal-not_found-paired_agent = Cet assistant n’est pas appairé à votre appli de clés.
refusal-not_found-configured_status_address = La configuration ne demande aucune nouvelle adresse d’état à confirmer.
refusal-corrupt = Une partie de vos registres est illisible ({ $what }) : rien n’a été modifié.
refusal-tampered = Une partie de vos registres ({ $what }) a été modifiée par un autre programme, ou écrite avant que cette application ne vérifie ses registres : elle ne l’affiche pas et n’en signe rien.
stored-request = une demande
stored-pairing = un appairage
stored-history = votre historique
stored-credential = un justificatif
stored-booking_claim = une limite de réservations partagée
stored-meeting = un contrat de réunion
stored-outbox = ce qui attend le service de statut
stored-management_link = le mandat de gestion d’une réservation
stored-host_binding = l’adresse où une entreprise a été vérifiée
stored-attention = ce qu’une demande signale
stored-receipt = le reçu d’une réservation
stored-database = la base des registres

## A search of the person's records the key app will not run (keyapp::record_query::QueryError).
refusal-query-cursor = Cette liste ne peut pas reprendre à cet endroit ; relancez la recherche depuis le début.
refusal-query-too-long = Cette recherche est trop longue ; utilisez moins de mots.
refusal-query-control = Une recherche ne contient que du texte simple, sur une ligne.
refusal-query-range = La date de début est après la date de fin ; rien ne peut se trouver entre les deux.
refusal-query-unknown = Ce filtre n’est pas connu de l’appli de clés.

## A protocol object that does not verify, in words: one sentence per reason (keyapp::ui_words::words).
refusal-malformed = Ce qui a été envoyé ne peut pas être lu tel quel ; rien n’a été modifié.
refusal-duplicate_member = Ce qui a été envoyé nomme deux fois la même chose et ne se lit donc pas d’une seule façon ; rien n’a été modifié.
refusal-bad_key = Une clé de ce qui a été envoyé n’est pas utilisable ; rien n’a été modifié.
refusal-unknown_kid = Ce qui a été envoyé est signé d’une clé que son signataire ne publie pas ; rien n’a été modifié.
refusal-wrong_typ = Ce qui a été envoyé n’est pas le genre de document attendu ici ; rien n’a été modifié.
refusal-alg_mismatch = Ce qui a été envoyé est signé d’une façon que sa clé ne permet pas ; rien n’a été modifié.
refusal-bad_signature = La signature de ce qui a été envoyé ne lui correspond pas ; il a peut-être été modifié, et rien n’a été changé.
refusal-schema_invalid = Il manque à ce qui a été envoyé un élément nécessaire, ou il contient une valeur interdite ; rien n’a été modifié.
refusal-money_invalid = Un prix de ce qui a été envoyé n’est pas un montant valable ; rien n’a été modifié.
refusal-duration_invalid = Une durée de ce qui a été envoyé ne peut pas être lue ; rien n’a été modifié.
refusal-date_time_invalid = Une date ou une heure de ce qui a été envoyé ne peut pas être lue ; rien n’a été modifié.
refusal-expired = Ce qui a été envoyé a expiré ; rien n’a été modifié, et l’assistant peut redemander.
refusal-issued_in_future = Ce qui a été envoyé est daté dans le futur, on ne peut donc pas encore s’y fier ; vérifiez l’horloge de votre ordinateur. Rien n’a été modifié.
refusal-wrong_issuer = Ce qui a été envoyé est signé par un autre que celui qu’il nomme ; rien n’a été modifié.
refusal-unknown_time_zone = Ce qui a été envoyé nomme un fuseau horaire que l’appli de clés ne connaît pas ; rien n’a été modifié.
refusal-lines_do_not_sum = Les lignes du prix ne font pas son total ; rien n’a été modifié.
refusal-mixed_currencies = Le prix mélange plusieurs monnaies ; rien n’a été modifié.
refusal-bad_slot = Les heures du rendez-vous ne tiennent pas ensemble (il finirait avant de commencer, par exemple) ; rien n’a été modifié.
refusal-receipt_mismatch = Le reçu de la réservation ne correspond pas à ce qui a été approuvé ; rien n’a été modifié.
refusal-mandate_invalid = L’autorisation sur laquelle ceci repose n’est pas valable (elle a peut-être été modifiée, ou n’est pas pour cet établissement) ; rien n’a été modifié.
refusal-mandate_expired = L’autorisation sur laquelle ceci repose a expiré ; rien n’a été modifié.
refusal-out_of_scope = Ceci ne fait pas partie de ce que vous avez permis à l’assistant ; rien n’a été modifié.
refusal-constraint_not_met = Ceci dépasse les limites que vous avez fixées ; rien n’a été modifié.
refusal-meeting_invalid = Les termes de cette réunion ne tiennent pas ensemble (ses membres, agendas ou horaires) ; rien n’a été modifié.
refusal-acceptance_invalid = Cette réponse à une réunion n’est pas valable ; rien n’a été modifié.
refusal-person_required = Ce membre doit répondre en personne, pas par une règle permanente ; rien n’a été modifié.
refusal-rule_invalid = Cette règle permanente n’est pas valable ; rien n’a été modifié.
refusal-host_id_conflict = Vos registres lient le nom de cet établissement à une autre adresse web ; rien n’a été modifié, et un établissement qui a déménagé doit d’abord être confirmé par vous.
refusal-discovery_url_refused = L’adresse de l’établissement n’est pas une adresse web publique et sécurisée : l’appli de clés ne l’a pas visitée, et rien n’a été modifié.
refusal-discovery_failed = Le site de l’établissement n’a pas répondu comme il le doit, il n’a donc pas pu être vérifié et rien n’a été modifié ; réessayez plus tard.
refusal-discovery_invalid = Le site de l’établissement se décrit d’une façon qui n’est pas valable ; rien n’a été modifié.
refusal-text_not_inert = Un texte envoyé contient des caractères cachés ou trompeurs : il n’a pas été affiché, et rien n’a été modifié.
refusal-already_started = Ce rendez-vous a déjà commencé ; rien n’a été modifié.
refusal-contract_mismatch = Ceci ne correspond pas à la réunion dont il se réclame ; rien n’a été modifié.
refusal-own_contract = Vous avez organisé cette réunion, et votre signature est déjà votre oui ; rien n’a été modifié.
refusal-not_a_member = Vous n’êtes pas membre de cette réunion ; rien n’a été modifié.
refusal-booking_not_confirmed = Cette réservation est annulée, refusée, expirée ou passée : il n’y a rien à gérer, et rien n’a été modifié.
refusal-stale_receipt = Un reçu plus récent existe pour cette réservation, celui-ci ne compte donc plus ; rien n’a été modifié.
refusal-participant_not_booker = Cette réservation vous nomme comme invité, pas comme celui qui l’a faite ; rien n’a été modifié, et l’assistant peut plutôt vous demander de répondre à l’invitation.
refusal-not_tentative = Cette réservation n’attend pas les réponses de ses invités ; rien n’a été modifié.
refusal-not_a_participant = Cette réservation ne vous nomme pas comme invité ; rien n’a été modifié.
refusal-duplicate_participant = Cette réservation vous nomme plus d’une fois et ne peut donc pas recevoir de réponse ; rien n’a été modifié.
refusal-not_invited = Cette réservation ne vous demande pas de réponse ; rien n’a été modifié.
refusal-already_answered = Vous avez déjà répondu à cette réservation ; rien n’a été modifié.
refusal-no_deadline = Cette réservation ne vous donne pas de date limite pour répondre ; rien n’a été modifié.
refusal-deadline_passed = La date limite pour répondre à cette réservation est passée ; elle suit ce qui était prévu sans réponse, et rien n’a été modifié.
refusal-no_contract = L’établissement a envoyé cette réservation sans son offre : elle ne peut pas être vérifiée, et rien n’a été modifié.
refusal-booking_mismatch = La réservation que montre l’établissement diffère de celle que signe son reçu ; rien n’a été modifié.
refusal-not_my_calendar = Cette offre n’est pas pour une réservation dans votre propre agenda ; rien n’a été modifié.
