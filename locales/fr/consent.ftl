# Texte de consentement, français (conventions canadiennes : CLDR fr-CA, « 08 h 00 »).
#
# Ce qu’une personne lit avant de dire oui (SchCP §5.2, §5.3). Rendu par
# crates/consent, intégré à la compilation, comparé octet par octet par ses tests
# d’instantanés : tout changement ici change ce que les gens acceptent.
# Tout terme que montre l’anglais, le français le montre.
# Typographie canadienne : espace avant « : », aucune avant « ; ».

## Citer un texte fourni par quelqu’un d’autre (voir crates/consent/src/inert.rs).
quoted = « { $text } »

## Listes dont les éléments contiennent des virgules (le CLDR joint les autres).
list-and-semicolons = { $head }; et { $last }
list-or-semicolons = { $head }; ou { $last }

## Dates et heures : les noms viennent du CLDR, l’ordre est le nôtre.
date = { $weekday } { $day } { $month } { $year }
slot-fixed = { $date }, de { $start } à { $end } ({ $zone })
slot-span = du { $date }, { $start }, au { $end_date }, { $end } ({ $zone })
slot-open = { $date } à partir de { $start } ({ $zone }), sans heure de fin
instant = { $date } à { $time } ({ $zone })

## Durées, telles qu’écrites (§2.1).
unit-year =
    { $count ->
        [one] { $shown } an
       *[other] { $shown } ans
    }
unit-week =
    { $count ->
        [one] { $shown } semaine
       *[other] { $shown } semaines
    }
unit-day =
    { $count ->
        [one] { $shown } jour
       *[other] { $shown } jours
    }
unit-hour =
    { $count ->
        [one] { $shown } heure
       *[other] { $shown } heures
    }
unit-minute =
    { $count ->
        [one] { $shown } minute
       *[other] { $shown } minutes
    }
unit-second =
    { $count ->
        [one] { $shown } seconde
       *[other] { $shown } secondes
    }

## Argent (§5.2, §8) : un prix indiqué se paie toujours directement à l’hôte.
money = { $amount } { $currency }
price = { $amount } { $currency }, à payer directement à { $payee }

## Qui (§5.2, §5.3).
identity-verified = { $name } ({ $domain })
identity-unverified = { $name } ({ $id }, non vérifié)
identity-unverified-id = { $id } (non vérifié)

## Offres de réservation (§5.2).
service-resource = { $service } avec { $resource }
offer-what = { $service } avec { $host }
offer-what-resource = { $service } avec { $resource } chez { $host }
offer-place = à { $place }
offer-party =
    { $count ->
        [one] pour { $count } personne
       *[other] pour { $count } personnes
    }
reconfirm-release = Je dois reconfirmer au plus tard le { $deadline }, soit { $before } avant le début; sinon, la réservation expire et sa plage horaire est libérée.
reconfirm-release-at-start = Je dois reconfirmer au plus tard au début, le { $deadline }; sinon, la réservation expire et sa plage horaire est libérée.
approval-deadline = { $host } dira oui ou non au plus tard le { $deadline }; sans réponse d’ici là, la réservation n’a pas lieu.
retention-kept = { $host } conserve les détails de ma réservation pendant { $period } après le rendez-vous.
retention-none = { $host } ne conserve pas les détails de ma réservation au-delà du rendez-vous.

## Offres de modification (§5.7).
place-host = les locaux de l’hôte
price-none = aucun prix
change-heading = Modifier ma réservation { $booking } avec { $host } :
change-what = Service : était { $from }; sera { $to }.
change-time = Moment : était { $from }; sera { $to }.
change-place = Lieu : était { $from }; sera { $to }.
change-party = Nombre de personnes : était { $from }; sera { $to }.
change-price = Prix : était { $from }; sera { $to }.
change-nothing = Les nouvelles conditions sont les mêmes que les conditions actuelles.
change-new-terms = Nouvelles conditions : { $summary }

## Mandats ouverts (§3.3).
mandate-intro = J’autorise l’assistant { $agent } à agir pour moi chez { $hosts }.
mandate-any-host = n’importe quel hôte
mandate-actions = Il peut { $actions }.
action-hold = retenir des plages horaires
action-book = prendre des rendez-vous
action-cancel = annuler des réservations
action-reschedule = déplacer des réservations à d’autres moments
action-delegate = transmettre ces permissions à un autre assistant
mandate-services = Services : { $services }.
mandate-any-service = n’importe quel service
mandate-no-service = aucun service
mandate-window = Quand : { $window }.
mandate-any-time = n’importe quand
mandate-price = Prix : chaque réservation jusqu’à { $amount } { $currency } tout compris, à payer directement à l’hôte.
mandate-price-bookings = Prix : chaque réservation jusqu’à { $amount } { $currency } tout compris, au plus { $count ->
        [one] { $count } réservation
       *[other] { $count } réservations
    }, à payer directement à l’hôte.
mandate-no-price-limit = Prix : aucune limite de prix.
mandate-bookings = Réservations : au plus { $count }.
mandate-bookings-shared = Réservations : au plus { $count } au total, partagées entre ces hôtes.
mandate-bookings-each = Réservations : au plus { $count } chez chaque hôte, sans partage entre eux.
mandate-bookings-unlimited = Réservations : aucune limite.
mandate-per-host = chez { $host }, { $value }
mandate-per-host-separator = {"; "}
mandate-price-per-host = Prix : { $values }; à payer directement à l’hôte.
mandate-price-value = chaque réservation jusqu’à { $amount } { $currency } tout compris
mandate-no-price-limit-value = aucune limite de prix
mandate-bookings-per-host = Réservations : { $values }.
mandate-bookings-value = au plus { $count }
mandate-bookings-unlimited-value = aucune limite
valid-until = Valable jusqu’au { $until }.

## Mandats ouverts : les limites se lisent comme elles s’appliquent (ce que la personne lit ne peut être déguisé ni enfoui).
mandate-unasked-book = L’assistant réserve dans ces limites sans me redemander.
mandate-unasked = L’assistant agit dans ces limites sans me redemander.
mandate-mode-human-present = Les hôtes sont informés que je suis là quand l’assistant agit en vertu de cette permission.
mandate-mode-human-not-present = Les hôtes sont informés que l’assistant agit en vertu de cette permission sans moi.
mandate-ends-early = Cette permission prend fin le { $until }, avant la fin de la période qu’elle permet.

## Mandats de gestion (§3.3).
management-intro = J’autorise l’assistant { $agent } à gérer ma réservation { $booking } : { $summary }.
management-actions = Il peut { $actions }, et rien d’autre.
action-booking-cancel = l’annuler
action-booking-reschedule = la déplacer à un autre moment

## Rencontres (§5.12).
member = { $name } ({ $calendar })
member-unknown = quelqu’un que vous ne connaissez pas, sous le nom de { $name }
attendee-relationship = { $name } ({ $relationship })
meeting-with = { $title } avec { $members }
meeting-attendees =
    { $count ->
        [one] avec { $attendees } qui vient aussi
       *[other] avec { $attendees } qui viennent aussi
    }
meeting-approve = J’approuve : { $terms }.
meeting-approve-answers = J’approuve : { $terms }; { $answers }.
meeting-arranged = { $title } à l’initiative de { $organizer }
meeting-others = avec { $members }
meeting-accept = J’accepte : { $terms }.
meeting-organizer-name = Les membres qui ne m’ont pas dans leurs contacts me voient nommé·e { $name }.
meeting-replaces = Ceci est la révision { $revision } d’une rencontre que j’ai approuvée auparavant, et la remplace : { $previous }
meeting-member-price = { $host } : { $price }.
answers-person =
    { $count ->
        [one] { $names } répond en personne
       *[other] { $names } répondent en personne
    }
answers-rule =
    { $count ->
        [one] { $names } peut répondre par une règle signée de sa main
       *[other] { $names } peuvent chacun répondre par une règle signée de leur main
    }
answers-both = { $person }; { $rule }

## Règles (§7.9).
rule-intro = Je permets à un assistant de dire oui pour moi, sans me le demander d’abord, selon ma règle { $label }.
rule-services = Services : { $services }.
rule-any-service = Services : n’importe quel service.
rule-days = Jours : { $days } ({ $zone }).
rule-any-day = Jours : n’importe quel jour.
rule-organizers = Organisateurs : { $organizers }.
rule-any-organizer = Organisateurs : toute personne qui peut réserver mon temps.
organizer-unknown = quelqu’un qui n’est pas dans mes contacts ({ $principal })
rule-agent = Assistant : { $agent }, empreinte de clé { $fingerprint }.
rule-agent-unknown = Assistant : un assistant non jumelé à cette application de clés, empreinte de clé { $fingerprint }.

## Jumelage (docs/agent-api.md §4 « Pairing »).
pairing = Jumeler l’assistant { $agent } à cette application de clés; l’assistant doit afficher le code { $fingerprint }.
pairing-effect = Une fois jumelé, il pourra me demander ici d’approuver des demandes; il ne peut rien approuver ni signer lui-même.

## Invitations (§5.10) : la réservation d’une autre personne me nomme comme participant requis.
invitation-accept = J’accepte l’invitation de { $booker } à sa réservation : { $summary }.
invitation-booker-unnamed = quelqu’un que la réservation ne nomme pas
invitation-role = La réservation m’inscrit comme personne invitée.
invitation-role-relationship = La réservation m’inscrit comme personne invitée ({ $relationship }).
invitation-deadline-release = Je dois répondre au plus tard le { $deadline }. Si je refuse, rien n’est signé et l’hôte n’en est pas informé ; à ce moment, comme lorsque je ne réponds pas, la réservation suit sa règle par défaut : elle est libérée.
invitation-changed = La réservation a changé depuis que je l’ai acceptée; ceci remplace mon acceptation précédente :
invitation-changed-unknown = La réservation a changé depuis qu’elle a été faite; l’application de clés n’a aucune trace des conditions que j’avais acceptées, elle ne peut donc pas montrer ce qui change.

## La reconfirmation de la personne qui a réservé (§5.10), donnée par un mandat de gestion.
reconfirmation = Ceci reconfirme la réservation, ce que je dois faire au plus tard le { $deadline }; sinon, la réservation expire et sa plage horaire est libérée.

## Liaison des hôtes (§2.2) : un hôte avec lequel l’application de clés n’a encore jamais traité.
new-host = Vous n’avez jamais eu affaire à { $hosts } auparavant.

## Retrait (§3.3 « Status URLs ») : les hôtes ne peuvent pas lire l’adresse de statut de
## cette application de clés; un justificatif qui en porte une ne peut donc pas être
## retiré avant son expiration.
not-withdrawable = Les hôtes ne peuvent pas vérifier auprès de cette application de clés; je ne pourrai donc pas retirer cet accord avant son expiration.

## Ce qu’un mandat racine sans certaines limites permet, en une ligne : l’en-tête
## de la fenêtre de consentement (attention `wide_mandate`).
wide-heading = { $agent } pourrait { $actions } chez { $hosts } : { $limits }, jusqu’au { $until }.
wide-any-service = n’importe quel service
wide-any-time = à n’importe quel moment
wide-only = uniquement { $what }
wide-per-host = dans la limite propre à chaque hôte
wide-any-price = à n’importe quel prix
wide-price = jusqu’à { $price } chacune
wide-any-bookings = autant de réservations qu’il veut
wide-bookings = { $count ->
    [one] une seule réservation
   *[other] jusqu’à { $count } réservations
}

## Chaque demande nommée en une ligne courte, pour les listes (Demandes, Historique, notifications).
summary-booking = { $what }, { $when }
summary-change = Déplacement : { $what }, au { $when }
summary-invitation = Invitation : { $what }, { $when }
summary-mandate = Permission d’agir chez { $hosts }
summary-management = Annuler ou déplacer : { $booking }
summary-reconfirmation = Reconfirmer : { $booking }
summary-meeting = Réunion { $title }
summary-acceptance = Participation à la réunion { $title }
summary-rule = Règle { $label }
summary-pairing = Association de { $agent }
summary-booking-read = Lecture de la réservation { $booking } chez { $hosts }
# Invitations: a no that signs nothing, attendees who answer (§5.10)
invitation-role-attendee = La réservation m’inscrit parmi les personnes présentes, et je dois répondre.
invitation-role-attendee-relationship = La réservation m’inscrit parmi les personnes présentes ({ $relationship }), et je dois répondre.

# The person's own yes to a booking on their calendar (§7.7, §7.9)
own-booking-accept = Je dis oui moi-même à cette réservation dans mon propre agenda : { $summary }.

# A narrow read credential for one booking (§5.5, §5.10)
booking-read = J’autorise l’assistant { $agent } à consulter la réservation { $booking } chez { $host }, la mienne ou une réservation à laquelle on m’invite, jusqu’au { $until }.
booking-read-only = Il ne peut rien réserver, modifier ni annuler avec cette autorisation. Mais si la réservation m’invite, l’hôte peut recevoir sous cette autorisation la réponse de mon assistant à cette invitation, oui ou non, sans qu’on me le redemande.
## Rules (§7.9) cannot be withdrawn: the calendar keeps them, no status URL names them.
rule-until = Cette règle vaut jusqu’au { $until }. Mon calendrier la garde; je ne pourrai donc pas la retirer avant son expiration.
## Modifications montrées d’avant en après (§5.7), propositions et contre-propositions
## de l’hôte (§5.8, §5.11), et révisions qu’un membre accepte (§5.12).
change-heading-host = { $host } propose de modifier ma réservation { $booking } :
change-heading-counter = { $host } n’a pas accepté ma demande de réservation { $booking } telle que je l’ai faite, et fait une contre-proposition à ses propres conditions :
change-no-receipt = L’application de clés n’a pas de reçu pour cette réservation; elle ne peut donc pas montrer ce qui change, mais mon assistant peut joindre le reçu de la réservation à cette demande pour le montrer.
change-what-unstated = Service : sera { $to }; le reçu ne dit pas ce qu’il était.
change-resource = Réservé avec : était { $from }; sera { $to }.
change-resource-unstated = Réservé avec : { $to }; le reçu ne dit pas avec qui ou quoi auparavant.
resource-any = la personne ou la ressource disponible
change-reconfirm = Reconfirmation : était { $from }; sera { $to }.
reconfirm-term = à faire { $before } avant le début, sinon la réservation est libérée
reconfirm-term-at-start = à faire avant le début, sinon la réservation est libérée
reconfirm-term-none = aucune
change-retention = Conservation de mes données après la réservation : était { $from }; sera { $to }.
retention-term-none = aucune
change-meeting-title = Rencontre : était { $from }; sera { $to }.
change-attendees = Viennent aussi : était { $from }; sera { $to }.
attendees-none = personne
acceptance-changed = Ceci est la révision { $revision } de la rencontre; elle remplace la révision { $accepted }, que j’ai acceptée. Ce qui change depuis :
acceptance-replaces = Ceci est la révision { $revision } de la rencontre, et remplace la révision { $previous }, que je n’ai pas acceptée.
acceptance-answers = Les autres membres : { $answers }.
