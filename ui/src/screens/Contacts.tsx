import { useState } from "preact/hooks";
import { api, type Contact } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { useAction, useLoad } from "../useLoad";

function Row(props: { c: Contact; run: (act: () => Promise<unknown>) => Promise<boolean> }) {
  const t = useT();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(props.c.name);
  const inputId = `rename-${props.c.principal}`;
  return (
    <tr>
      <td>
        {editing ? (
          <span>
            <label for={inputId} class="visually-hidden">{t("col-name")}</label>
            <input id={inputId} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </span>
        ) : (
          props.c.name
        )}
      </td>
      <td class="id">{props.c.principal}</td>
      <td>{props.c.relationship ?? ""}</td>
      <td>
        {editing ? (
          <span>
            <button
              type="button"
              onClick={async () => {
                if (await props.run(() => api.renameContact(props.c.principal, name))) setEditing(false);
              }}
            >
              {t("contacts-save")}
            </button>{" "}
            <button type="button" onClick={() => setEditing(false)}>{t("contacts-cancel")}</button>
          </span>
        ) : (
          <span>
            <button type="button" onClick={() => setEditing(true)}>{t("contacts-rename")}</button>{" "}
            <ConfirmButton
              label={t("contacts-remove")}
              question={t("contacts-remove-confirm")}
              onConfirm={() => props.run(() => api.removeContact(props.c.principal)).then(() => undefined)}
            />
          </span>
        )}
      </td>
    </tr>
  );
}

/**
 * A contact card as the other person copies it from their key app's Settings:
 * `Name <urn:schcp:principal:…>`, or their id alone. The key app checks the id
 * when it is added; this only splits what was pasted.
 */
export function parseCard(text: string): { name: string | null; principal: string } {
  const card = text.trim().match(/^([^<>]*?)\s*<\s*(urn:schcp:principal:[^<>\s]+)\s*>$/);
  if (card) return { name: card[1].trim() === "" ? null : card[1].trim(), principal: card[2] };
  return { name: null, principal: text.trim() };
}

/**
 * A short code of a principal id to read aloud: the first 60 bits of its key's
 * thumbprint, in hex, as three groups of five. Two people compare it (in
 * person or by phone) when one adds the other: a card swapped on its way (a
 * program of the person's can rewrite the clipboard) carries another key,
 * and another code. Null for anything that is not a principal id.
 */
export function contactCode(principal: string): string | null {
  const m = principal.trim().match(/^urn:schcp:principal:jwk-thumbprint:([A-Za-z0-9_-]{43})$/);
  if (!m) return null;
  const bytes = atob(m[1].slice(0, 12).replace(/-/g, "+").replace(/_/g, "/"));
  const hex = Array.from(bytes, (c) => c.charCodeAt(0).toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase()
    .slice(0, 15);
  return `${hex.slice(0, 5)} ${hex.slice(5, 10)} ${hex.slice(10, 15)}`;
}

export function Contacts() {
  const t = useT();
  const { data, error, reload } = useLoad(api.contacts);
  const { failure, run } = useAction(reload);
  const [principal, setPrincipal] = useState("");
  const [name, setName] = useState("");
  const [relationship, setRelationship] = useState("");
  async function add(e: Event) {
    e.preventDefault();
    const rel = relationship.trim() === "" ? null : relationship.trim();
    if (await run(() => api.addContact(principal.trim(), name, rel))) {
      setPrincipal("");
      setName("");
      setRelationship("");
    }
  }
  return (
    <ListScreen
      name="contacts"
      data={data}
      error={error ?? failure}
      columns={["col-name", "col-principal", "col-relationship", "col-actions"]}
      row={(c) => (
        <Row key={c.principal} c={c} run={run} />
      )}
    >
      <form class="add" onSubmit={add}>
        <h2>{t("contacts-add")}</h2>
        <label for="contact-principal">{t("contacts-card")}</label>
        <p class="hint" id="contact-principal-hint">{t("contacts-card-hint")}</p>
        <input
          id="contact-principal"
          aria-describedby="contact-principal-hint"
          required
          value={principal}
          onInput={(e) => {
            // A pasted card fills the name too; an id alone is kept as typed.
            const card = parseCard(e.currentTarget.value);
            setPrincipal(card.name !== null ? card.principal : e.currentTarget.value);
            if (card.name !== null && name === "") setName(card.name);
          }}
        />
        {contactCode(principal) && (
          <p id="contact-code-line">
            {t("contacts-code")} <code id="contact-code">{contactCode(principal)}</code>
            <br />
            <span class="hint">{t("contacts-code-hint")}</span>
          </p>
        )}
        <label for="contact-name">{t("col-name")}</label>
        <input id="contact-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="contact-relationship">{t("col-relationship")}</label>
        <input id="contact-relationship" value={relationship} onInput={(e) => setRelationship(e.currentTarget.value)} />
        <button type="submit">{t("contacts-add")}</button>
      </form>
    </ListScreen>
  );
}
