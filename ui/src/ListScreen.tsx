import type { ComponentChildren } from "preact";
import { useT } from "./i18n";

/**
 * The frame every list screen shares: its heading, why something failed, "nothing
 * here" or the table, then whatever the screen adds (a form). `name` names the
 * heading's message (`{name}-heading`) and its id (`h-{name}`), which the section is
 * labelled by; `columns` are the column headings' message ids; `row` renders one
 * item as a `<tr>` with its key.
 */
export function ListScreen<T>(props: {
  name: string;
  data: T[] | null;
  error: string | null;
  columns: string[];
  row: (item: T, index: number) => ComponentChildren;
  notice?: ComponentChildren;
  children?: ComponentChildren;
  /** The message id said when the list is empty (`empty-list` unless given). */
  empty?: string;
}) {
  const t = useT();
  const { data } = props;
  return (
    <section aria-labelledby={`h-${props.name}`}>
      <h1 id={`h-${props.name}`}>{t(`${props.name}-heading`)}</h1>
      {props.notice}
      {props.error && <p role="alert">{t("error-prefix")} {props.error}</p>}
      {data && data.length === 0 && <p>{t(props.empty ?? "empty-list")}</p>}
      {data && data.length > 0 && (
        <table>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col" key={c}>
                  {t(c)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{data.map((item, i) => props.row(item, i))}</tbody>
        </table>
      )}
      {props.children}
    </section>
  );
}
