# Consent text, English (Canadian conventions: CLDR en-CA times, "8:00 a.m.").
#
# What a person reads before saying yes (SchCP §5.2, §5.3). Rendered by crates/consent,
# embedded at build time, compared byte for byte by its snapshot tests: a change here
# is a change to what people agree to, so review the snapshots with it.
# Dates, times, zone names, lists and numbers arrive as CLDR-formatted strings.
# Spaces are plain U+0020 throughout; Fluent isolation marks are off.

## Quoting text someone else supplied (see crates/consent/src/inert.rs).
quoted = "{ $text }"

## Lists whose items contain commas (CLDR joins the others).
list-and-semicolons = { $head }; and { $last }
list-or-semicolons = { $head }; or { $last }

## Dates and times. CLDR gives the names; only their order is ours, the spec's own:
## "Thursday 15 October 2026, 8:00–9:00 a.m. Pacific time".
date = { $weekday } { $day } { $month } { $year }
slot-fixed = { $date }, { $start }–{ $end } { $zone }
slot-span = { $date }, { $start } to { $end_date }, { $end } { $zone }
slot-open = { $date } from { $start } { $zone }, open-ended
instant = { $date }, { $time } { $zone }

## Durations, as written (§2.1). $shown is the CLDR-formatted number.
unit-year =
    { $count ->
        [one] { $shown } year
       *[other] { $shown } years
    }
unit-week =
    { $count ->
        [one] { $shown } week
       *[other] { $shown } weeks
    }
unit-day =
    { $count ->
        [one] { $shown } day
       *[other] { $shown } days
    }
unit-hour =
    { $count ->
        [one] { $shown } hour
       *[other] { $shown } hours
    }
unit-minute =
    { $count ->
        [one] { $shown } minute
       *[other] { $shown } minutes
    }
unit-second =
    { $count ->
        [one] { $shown } second
       *[other] { $shown } seconds
    }

## Money (§5.2, §8): a stated price is always paid to the host directly.
money = { $currency } { $amount }
price = { $currency } { $amount }, paid to { $payee } directly

## Who (§5.2, §5.3): the domain the key app discovered, or the claim labelled unverified.
identity-verified = { $name } ({ $domain })
identity-unverified = { $name } ({ $id }, unverified)
identity-unverified-id = { $id } (unverified)

## Booking offers (§5.2).
service-resource = { $service } with { $resource }
offer-what = { $service } with { $host }
offer-what-resource = { $service } with { $resource } at { $host }
offer-place = at { $place }
offer-party =
    { $count ->
        [one] for { $count } person
       *[other] for { $count } people
    }
reconfirm-release = I must reconfirm by { $deadline } ({ $before } before the start); if I don't, the booking lapses and its time is released.
reconfirm-release-at-start = I must reconfirm by the start, { $deadline }; if I don't, the booking lapses and its time is released.
approval-deadline = { $host } will say yes or no by { $deadline }; without an answer by then, the booking does not happen.
retention-kept = { $host } keeps my booking details for { $period } after the booking.
retention-none = { $host } does not keep my booking details past the booking.

## Change offers (§5.7).
place-host = the host's premises
price-none = no price
change-heading = Change my booking { $booking } with { $host }:
change-what = Service: from { $from } to { $to }.
change-time = Time: from { $from } to { $to }.
change-place = Place: from { $from } to { $to }.
change-party = Party size: from { $from } to { $to }.
change-price = Price: from { $from } to { $to }.
change-nothing = The new terms are the same as the current ones.
change-new-terms = New terms: { $summary }

## Open mandates (§3.3). A constraint left out is said as no limit.
mandate-intro = I allow the assistant { $agent } to act for me at { $hosts }.
mandate-any-host = any host at all
mandate-actions = It may { $actions }.
action-hold = hold times
action-book = book appointments
action-cancel = cancel bookings
action-reschedule = move bookings to other times
action-delegate = pass these permissions on to another assistant
mandate-services = Services: { $services }.
mandate-any-service = any service
mandate-no-service = no service
mandate-window = When: { $window }.
mandate-any-time = any time
mandate-price = Price: each booking up to { $currency } { $amount } all-in, paid to the host directly.
mandate-price-bookings = Price: each booking up to { $currency } { $amount } all-in, at most { $count ->
        [one] { $count } booking
       *[other] { $count } bookings
    }, paid to the host directly.
mandate-no-price-limit = Price: no price limit.
mandate-bookings = Bookings: at most { $count }.
mandate-bookings-shared = Bookings: at most { $count } in all, shared across these hosts.
mandate-bookings-each = Bookings: at most { $count } at each host, not shared across them.
mandate-bookings-unlimited = Bookings: no limit.
mandate-per-host = at { $host }, { $value }
mandate-per-host-separator = {"; "}
mandate-price-per-host = Price: { $values }; paid to the host directly.
mandate-price-value = each booking up to { $currency } { $amount } all-in
mandate-no-price-limit-value = no price limit
mandate-bookings-per-host = Bookings: { $values }.
mandate-bookings-value = at most { $count }
mandate-bookings-unlimited-value = no limit
valid-until = Valid until { $until }.

## Open mandates: limits read as they bind (what the person reads cannot be disguised or buried).
mandate-unasked-book = The assistant books within these limits without asking me again.
mandate-unasked = The assistant acts within these limits without asking me again.
mandate-mode-human-present = Hosts are told that I am present when the assistant acts under this permission.
mandate-mode-human-not-present = Hosts are told that the assistant acts under this permission without me present.
mandate-ends-early = This permission ends on { $until }, before the end of the time it allows.

## Management mandates (§3.3).
management-intro = I allow the assistant { $agent } to manage my booking { $booking }: { $summary }.
management-actions = It may { $actions }, and nothing else.
action-booking-cancel = cancel it
action-booking-reschedule = move it to another time

## Meetings (§5.12).
member = { $name } ({ $calendar })
member-unknown = someone you don't know, named { $name }
attendee-relationship = { $name } ({ $relationship })
meeting-with = { $title } with { $members }
meeting-attendees = with { $attendees } coming along
meeting-approve = I approve: { $terms }.
meeting-approve-answers = I approve: { $terms }; { $answers }.
meeting-arranged = { $title } arranged by { $organizer }
meeting-others = with { $members }
meeting-accept = I accept: { $terms }.
meeting-organizer-name = Members who do not have me as a contact see me named { $name }.
meeting-replaces = This is revision { $revision } of a meeting I approved before, and replaces it: { $previous }
meeting-member-price = { $host }: { $price }.
answers-person =
    { $count ->
        [one] { $names } answers in person
       *[other] { $names } answer in person
    }
answers-rule =
    { $count ->
        [one] { $names } may answer by a rule they signed
       *[other] { $names } may each answer by a rule they signed
    }
answers-both = { $person }; { $rule }

## Rules (§7.9).
rule-intro = I let an assistant say yes for me, without asking me first, under my rule { $label }.
rule-services = Services: { $services }.
rule-any-service = Services: any service.
rule-days = Days: { $days } ({ $zone }).
rule-any-day = Days: any day.
rule-organizers = Organizers: { $organizers }.
rule-any-organizer = Organizers: anyone who may book my time.
organizer-unknown = someone not in my contacts ({ $principal })
rule-agent = Assistant: { $agent }, key fingerprint { $fingerprint }.
rule-agent-unknown = Assistant: one not paired with this key app, key fingerprint { $fingerprint }.

## Pairing (docs/agent-api.md §4 "Pairing").
pairing = Pair the assistant { $agent } with this key app; the assistant must show the code { $fingerprint }.
pairing-effect = Once paired, it can ask me to approve requests here; it cannot approve or sign anything itself.

## Invitations (§5.10): someone else's booking names me as a required participant.
invitation-accept = I accept an invitation from { $booker } to a booking they made: { $summary }.
invitation-booker-unnamed = someone the booking does not name
invitation-role = The booking names me as an invitee.
invitation-role-relationship = The booking names me as an invitee ({ $relationship }).
invitation-deadline-release = I must answer by { $deadline }. If I decline, nothing is signed and the host is not told; at that time, as when I do not answer, the booking follows its default: it is released.
invitation-changed = The booking changed since I accepted it; this replaces my earlier yes:
invitation-changed-unknown = The booking changed since it was made; the key app has no record of terms I accepted before, so it cannot show what changes.

## The booker's reconfirmation (§5.10), answered with a management mandate.
reconfirmation = This reconfirms the booking, which I must do by { $deadline }; if I don't, the booking lapses and its time is released.

## Host binding (§2.2): a host the key app has not dealt with before.
new-host = You have not dealt with { $hosts } before.

## Withdrawal (§3.3 "Status URLs"): hosts cannot read this key app's status address,
## so a credential that carries one cannot be withdrawn before it expires.
not-withdrawable = Hosts cannot check with this key app, so I cannot withdraw this before it expires.

## What a root mandate without some limit allows, in one line: the consent
## window's heading for it (attention `wide_mandate`).
wide-heading = { $agent } could { $actions } at { $hosts }: { $limits }, until { $until }.
wide-any-service = any service
wide-any-time = at any time
wide-only = only { $what }
wide-per-host = within each host’s own limit
wide-any-price = at any price
wide-price = up to { $price } each
wide-any-bookings = as many bookings as it likes
wide-bookings = { $count ->
    [one] one booking
   *[other] up to { $count } bookings
}

## Each request named in one short line, for lists (Requests, History, notifications).
summary-booking = { $what }, { $when }
summary-change = Move: { $what }, to { $when }
summary-invitation = Invitation: { $what }, { $when }
summary-mandate = Permission to act at { $hosts }
summary-management = Cancel or move: { $booking }
summary-reconfirmation = Reconfirm: { $booking }
summary-meeting = Meeting { $title }
summary-acceptance = Joining the meeting { $title }
summary-rule = Rule { $label }
summary-pairing = Pairing { $agent }
summary-booking-read = Reading booking { $booking } at { $hosts }
# Invitations: a no that signs nothing, attendees who answer (§5.10)
invitation-role-attendee = The booking names me as someone coming along, who must answer.
invitation-role-attendee-relationship = The booking names me as someone coming along ({ $relationship }), who must answer.

# The person's own yes to a booking on their calendar (§7.7, §7.9)
own-booking-accept = I say yes myself to this booking on my own calendar: { $summary }.

# A narrow read credential for one booking (§5.5, §5.10)
booking-read = I allow the assistant { $agent } to read booking { $booking } at { $host }, mine or one I am invited to, until { $until }.
booking-read-only = It cannot book, change or cancel anything with it. But if the booking invites me, the host may take my assistant’s answer to that invitation under it, yes or no, without my being asked again.
## Rules (§7.9) cannot be withdrawn: the calendar keeps them, no status URL names them.
rule-until = This rule lasts until { $until }. My calendar keeps it, so I cannot withdraw it before it expires.
## Moves shown from and to (§5.7), the host's proposals and counters (§5.8, §5.11),
## and revisions a member accepts (§5.12).
change-heading-host = { $host } proposes to change my booking { $booking }:
change-heading-counter = { $host } has not accepted my booking request { $booking } as I asked it, and counters with its own terms:
change-no-receipt = The key app has no receipt for this booking, so it cannot show what changes; my assistant can send the booking's receipt with this request to show it.
change-what-unstated = Service: to { $to }; the receipt does not say what it was before.
change-resource = Booked with: from { $from } to { $to }.
change-resource-unstated = Booked with: { $to }; the receipt does not say with whom or what before.
resource-any = whoever is free
change-reconfirm = Reconfirmation: from { $from } to { $to }.
reconfirm-term = due { $before } before the start, else the booking is released
reconfirm-term-at-start = due by the start, else the booking is released
reconfirm-term-none = none
change-retention = Records kept after the booking: from { $from } to { $to }.
retention-term-none = none
change-meeting-title = Meeting: from { $from } to { $to }.
change-attendees = Coming along: from { $from } to { $to }.
attendees-none = no one
acceptance-changed = This is revision { $revision } of the meeting; it replaces revision { $accepted }, which I accepted. What changes since then:
acceptance-replaces = This is revision { $revision } of the meeting, and replaces revision { $previous }, which I have not accepted.
acceptance-answers = The other members: { $answers }.
