/**
 * "Face sign-in": whether a face is enrolled (`GET /entity/face`), enrolling or replacing
 * it from a photo (`PUT /entity/face`, the image as the body), removing it. The provider
 * keeps only an encrypted template of the face, never the photo. A 422 says why a photo
 * cannot be used, next to the file input; 503 means this server has no face sign-in.
 */
import { useState } from "react";
import { ApiError, del, get } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SubmitRow, TextField } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import type { FaceStatus } from "./api";
import { useImageUpload } from "./upload";

const UNAVAILABLE = "Face sign-in is not available on this server.";

type FaceLoad = { available: false } | { available: true; status: FaceStatus };

function Enrol({ enrolled, onDone }: { enrolled: boolean; onDone: (status: FaceStatus) => void }) {
  const { submission, inputKey, input } = useImageUpload<FaceStatus>({
    path: "/entity/face",
    field: "face",
    unavailable: UNAVAILABLE,
    refuse: (file) => {
      if (!file) return "Choose a photo of your face first.";
      if (!file.type.startsWith("image/")) return "Choose an image (a PNG, JPEG or WebP photo).";
      return null;
    },
    onUploaded: onDone,
  });
  return (
    <Form submission={submission} label={enrolled ? "Replace your face" : "Enrol your face"}>
      <TextField
        key={inputKey}
        label="Photo of your face"
        hint="A sharp, well-lit photo showing only you, facing the camera, your face large in the picture."
        accept="image/*"
        {...input}
      />
      <SubmitRow submission={submission} busyLabel="Checking the photo…">{enrolled ? "Replace face" : "Enrol face"}</SubmitRow>
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
      <Panel title="Your face">
        <dl className="facts">
          <dt>Status</dt>
          <dd>{status.enrolled ? <span className="tag ok">On</span> : <span className="tag">Off</span>}</dd>
          {status.enrolled ? (
            <>
              <dt>Enrolled</dt>
              <dd>{formatTime(status.enrolledAt)}</dd>
              <dt>Last replaced</dt>
              <dd>{formatTime(status.updatedAt)}</dd>
            </>
          ) : null}
        </dl>
        {canWrite ? (
          <>
            <Enrol
              enrolled={status.enrolled}
              onDone={(next) => {
                setNotice(status.enrolled ? "Your face was replaced." : "Your face is enrolled: you can sign in with it.");
                setStatus(next);
              }}
            />
            {status.enrolled ? (
              <div className="form-row after-form">
                <ConfirmButton
                  label="Remove face"
                  title="Remove your face?"
                  confirmLabel="Remove face"
                  onConfirm={async () => {
                    await del("/entity/face");
                    setStatus({ enrolled: false });
                    setNotice("Your face was removed. Sign in with your password.");
                  }}
                >
                  <p>The template of your face is deleted; you can no longer sign in with your face.</p>
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
      title="Face sign-in"
      intro="Sign in with a photo of your face instead of typing your password. Only an encrypted template of your face is kept, never the photo. A good printed photo of you may pass too: an authenticator adds a step it cannot."
    >
      <Loaded state={state} reload={reload}>
        {(loaded) =>
          loaded.available ? (
            <FacePanel initial={loaded.status} />
          ) : (
            <p className="empty">{UNAVAILABLE} Sign in with your password.</p>
          )
        }
      </Loaded>
    </Screen>
  );
}
