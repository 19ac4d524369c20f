import { t } from "../../../i18n";
import { type Draft, exampleValue } from "./model";

/**
 * What a relying party would receive for this field, recomputed on every keystroke:
 * the claim with an example value of the field's type, and when it is released
 * (contract §2 rule 2: only when its scope was granted; a group field only for members).
 */
export function ClaimPreview({ draft, groupName }: { draft: Draft; groupName?: string | undefined }) {
  const name = draft.claimName.trim();
  const scope = draft.claimScope.trim();
  let body;
  if (name && scope) {
    const claim = JSON.stringify({ [name]: exampleValue(draft) }, null, 2);
    body = (
      <>
        <p data-testid="claim-preview-text">
          {groupName
            ? t("admin-ops.fields.preview.releasedGroup", { scope, group: groupName })
            : t("admin-ops.fields.preview.released", { scope })}
        </p>
        <pre className="claim-json">{claim}</pre>
      </>
    );
  } else {
    let why = "none";
    if (name) why = "scope";
    else if (scope) why = "name";
    body = <p data-testid="claim-preview-text">{t("admin-ops.fields.preview.notReleased", { why })}</p>;
  }
  return (
    <section className="panel claim-preview" aria-labelledby="claim-preview-title">
      <h2 id="claim-preview-title">{t("admin-ops.fields.preview.title")}</h2>
      {body}
    </section>
  );
}
