/**
 * "Face sign-in": whether a face is enrolled (`GET /entity/face`), enrolling or replacing
 * it from a photo (`PUT /entity/face`, the image as the body), removing it. The provider
 * keeps only an encrypted template of the face, never the photo. A 422 says why a photo
 * cannot be used, next to the file input; 503 means this server has no face sign-in.
 */
import { useState } from "react";
import { ApiError, del, get } from "../../api/client";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SubmitRow, TextField } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import type { FaceStatus } from "./api";
import { useImageUpload } from "./upload";


type FaceLoad = { available: false } | { available: true; status: FaceStatus };

function Enrol({ enrolled, onDone }: { enrolled: boolean; onDone: (status: FaceStatus) => void }) {
  const { submission, inputKey, input } = useImageUpload<FaceStatus>({
    path: "/entity/face",
    field: "face",
    unavailable: t("account.face.unavailable"),
    refuse: (file) => {
      if (!file) return t("account.face.chooseFirst");
      if (!file.type.startsWith("image/")) return t("account.face.chooseImage");
      return null;
    },
    onUploaded: onDone,
  });
  return (
    <Form submission={submission} label={enrolled ? t("account.face.replaceLabel") : t("account.face.enrolLabel")}>
      <TextField
        key={inputKey}
        label={t("account.face.photo")}
        hint={t("account.face.photoHint")}
        accept="image/*"
        {...input}
      />
      <SubmitRow submission={submission} busyLabel={t("account.face.checking")}>{enrolled ? t("account.face.replace") : t("account.face.enrol")}</SubmitRow>
    </Form>
  );
}

function FacePanel({ initial }: { initial: FaceStatus }) {
  const canWrite = hasScope("idp:account:write");
  const [status, setStatus] = useState(initial);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      <Panel title={t("account.face.panel")}>
        <dl className="facts">
          <dt>{t("account.status")}</dt>
          <dd>{status.enrolled ? <span className="tag ok">{t("account.on")}</span> : <span className="tag">{t("account.off")}</span>}</dd>
          {status.enrolled ? (
            <>
              <dt>{t("account.face.enrolledAt")}</dt>
              <dd>{formatTime(status.enrolledAt)}</dd>
              <dt>{t("account.face.updatedAt")}</dt>
              <dd>{formatTime(status.updatedAt)}</dd>
            </>
          ) : null}
        </dl>
        {canWrite ? (
          <>
            <Enrol
              enrolled={status.enrolled}
              onDone={(next) => {
                setNotice(status.enrolled ? t("account.face.replaced") : t("account.face.enrolled"));
                setStatus(next);
              }}
            />
            {status.enrolled ? (
              <div className="form-row after-form">
                <ConfirmButton
                  label={t("account.face.remove")}
                  title={t("account.face.removeQuestion")}
                  confirmLabel={t("account.face.remove")}
                  onConfirm={async () => {
                    await del("/entity/face");
                    setStatus({ enrolled: false });
                    setNotice(t("account.face.removed"));
                  }}
                >
                  <p>{t("account.face.removeText")}</p>
                </ConfirmButton>
              </div>
            ) : null}
          </>
        ) : null}
      </Panel>
    </>
  );
}

export function FaceScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad(async (signal): Promise<FaceLoad> => {
    try {
      return { available: true, status: await get<FaceStatus>("/entity/face", undefined, signal) };
    } catch (error) {
      if (error instanceof ApiError && error.status === 503) return { available: false };
      throw error;
    }
  }, []);
  return (
    <Screen
      title={t("account.face.title")}
      intro={t("account.face.intro")}
    >
      <Loaded state={state} reload={reload}>
        {(loaded) =>
          loaded.available ? (
            <FacePanel initial={loaded.status} />
          ) : (
            <p className="empty">{t("account.face.unavailableScreen")}</p>
          )
        }
      </Loaded>
    </Screen>
  );
}
