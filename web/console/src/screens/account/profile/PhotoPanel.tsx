/**
 * The person's photo: shown from its public URL (same origin), replaced by uploading an
 * image (sent as the request body, typed by the file), removed after a confirmation.
 */
import { useState } from "react";
import { del } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";
import { Panel } from "../../../ui/Screen";
import { ConfirmButton } from "../../../ui/dialog";
import { Form, SubmitButton, TextField } from "../../../ui/form";
import { Notice } from "../../../ui/table";
import { IMAGE_TYPES } from "../api";
import { useImageUpload } from "../upload";

export function PhotoPanel({ picture, onChange }: { picture: string | null; onChange: (next: string | null) => void }) {
  const canWrite = hasScope("idp:account:write");
  const [notice, setNotice] = useState<string | null>(null);
  const { submission, inputKey, input } = useImageUpload<{ picture: string }>({
    path: "/entity/profile/photo",
    field: "photo",
    unavailable: t("account.photo.noStore"),
    refuse: (file) => {
      if (!file) return t("account.photo.chooseFirst");
      if (!IMAGE_TYPES.split(",").includes(file.type)) return t("account.upload.chooseType");
      return null;
    },
    onStart: () => setNotice(null),
    onUploaded: (answer) => {
      onChange(answer.picture);
      setNotice(t("account.photo.saved"));
    },
  });
  return (
    <Panel title={t("account.photo.title")}>
      {notice ? <Notice>{notice}</Notice> : null}
      <div className="photo-row">
        {picture ? (
          <img className="photo" src={picture} alt={t("account.photo.alt")} />
        ) : (
          <p className="photo photo-empty">{t("account.photo.none")}</p>
        )}
        {canWrite ? (
          <div className="photo-actions">
            <Form submission={submission} label={t("account.photo.formLabel")}>
              <TextField
                key={inputKey}
                label={t("account.photo.new")}
                hint={t("account.photo.hint")}
                accept={IMAGE_TYPES}
                {...input}
              />
              <div className="form-row">
                <SubmitButton busy={submission.busy} busyLabel={t("account.photo.uploading")}>
                  {t("account.photo.upload")}
                </SubmitButton>
                {picture ? (
                  <ConfirmButton
                    label={t("account.photo.remove")}
                    title={t("account.photo.removeQuestion")}
                    confirmLabel={t("account.photo.remove")}
                    onConfirm={async () => {
                      setNotice(null);
                      await del("/entity/profile/photo");
                      onChange(null);
                      setNotice(t("account.photo.removed"));
                    }}
                  >
                    <p>{t("account.photo.removeText")}</p>
                  </ConfirmButton>
                ) : null}
              </div>
            </Form>
          </div>
        ) : null}
      </div>
    </Panel>
  );
}
