import { type Draft, exampleValue } from "./model";

/**
 * What a relying party would receive for this field, recomputed on every keystroke:
 * the claim with an example value of the field's type, and when it is released
 * (spec part 2 rule 2: only when its scope was granted; a group field only for members).
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
          Released in the ID token and at userinfo when the scope "{scope}" is granted
          {groupName ? `, and only for members of the group "${groupName}"` : ""}:
        </p>
        <pre className="claim-json">{claim}</pre>
      </>
    );
  } else {
    let why = "";
    if (name) why = " Choose the scope that releases it.";
    else if (scope) why = " Give the claim a name.";
    body = (
      <p data-testid="claim-preview-text">
        Not released as a claim.{why}
      </p>
    );
  }
  return (
    <section className="panel claim-preview" aria-labelledby="claim-preview-title">
      <h2 id="claim-preview-title">Claim preview</h2>
      {body}
    </section>
  );
}
