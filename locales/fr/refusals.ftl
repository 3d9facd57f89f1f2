# Pourquoi l’appli de clés a refusé ce que la personne a fait dans une fenêtre
# (keyapp::ui_words::refusal). Mêmes identifiants que locales/en/refusals.ftl.

refusal-not_pending = Cette demande n’attend plus de réponse : elle est { $status }. Rien n’a été signé.
refusal-not_found = Cet élément n’est plus dans vos registres ; il a peut-être été supprimé entre-temps.
refusal-busy = Vos registres sont occupés un instant ; réessayez.
refusal-bad_label = Le libellé d’une règle compte de 1 à { $max } caractères de texte simple, sur une seule ligne.
refusal-not_a_rule = Seul le libellé d’une règle peut être modifié.
refusal-bad_name = Le nom d’un contact ne peut pas être vide ni contenir de caractères de contrôle.
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
refusal-verification = Ceci n’a pas pu être vérifié ({ $reason }) ; rien n’a été modifié.
refusal-other = L’appli de clés n’a pas pu le faire ({ $reason }) : { $message }
refusal-not_asking = L’appli de clés ne demande pas de phrase de passe en ce moment.
refusal-unknown_language = L’appli de clés ne parle que l’anglais et le français.

# User verification: the OS did not confirm that the person gave this yes.
refusal-user_not_verified = Votre ordinateur n’a pas confirmé que c’était bien vous : rien n’a été approuvé ni signé. La demande attend toujours votre réponse.
refusal-verification_cancelled = La confirmation sur votre ordinateur a été annulée : rien n’a été approuvé ni signé. La demande attend toujours votre réponse.
refusal-verification_timed_out = La confirmation sur votre ordinateur n’a pas reçu de réponse à temps : rien n’a été approuvé ni signé. La demande attend toujours votre réponse.
refusal-verification_unavailable = Votre ordinateur ne peut pas confirmer que c’est bien vous (polkit n’est pas lancé ou pas installé) : rien n’a été approuvé ni signé. Installez-le avec « sudo apt install polkitd pkexec », puis réessayez.
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
