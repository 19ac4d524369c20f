/**
 * The person's photo: shown from its public URL (same origin), replaced by uploading an
 * image (sent as the request body, typed by the file), removed after a confirmation.
 */
import { useState } from "react";
import { del } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { Panel } from "../../../ui/Screen";
import { ConfirmButton } from "../../../ui/dialog";
import { Form, SubmitButton, TextField } from "../../../ui/form";
import { Notice } from "../../../ui/table";
import { IMAGE_TYPES } from "../api";
import { useImageUpload } from "../upload";

const NO_STORE =
  "Photos cannot be stored on this server at the moment (no photo store is available). Try again later or ask your administrator.";

export function PhotoPanel({ picture, onChange }: { picture: string | null; onChange: (next: string | null) => void }) {
  const canWrite = hasScope("idp:account:write");
  const [notice, setNotice] = useState<string | null>(null);
  const { submission, inputKey, input } = useImageUpload<{ picture: string }>({
    path: "/entity/profile/photo",
    field: "photo",
    unavailable: NO_STORE,
    refuse: (file) => {
      if (!file) return "Choose an image first.";
      if (!IMAGE_TYPES.split(",").includes(file.type)) return "Choose a PNG, JPEG or WebP image.";
      return null;
    },
    onStart: () => setNotice(null),
    onUploaded: (answer) => {
      onChange(answer.picture);
      setNotice("Photo saved.");
    },
  });
  return (
    <Panel title="Photo">
      {notice ? <Notice>{notice}</Notice> : null}
      <div className="photo-row">
        {picture ? (
          <img className="photo" src={picture} alt="Your photo" />
        ) : (
          <p className="photo photo-empty">No photo yet.</p>
        )}
        {canWrite ? (
          <div className="photo-actions">
            <Form submission={submission} label="Upload a photo">
              <TextField
                key={inputKey}
                label="New photo"
                hint="A PNG, JPEG or WebP image. It is stored without its metadata (location, camera) and shown to applications you sign in to."
                accept={IMAGE_TYPES}
                {...input}
              />
              <div className="form-row">
                <SubmitButton busy={submission.busy} busyLabel="Uploading…">
                  Upload photo
                </SubmitButton>
                {picture ? (
                  <ConfirmButton
                    label="Remove photo"
                    title="Remove your photo?"
                    confirmLabel="Remove photo"
                    onConfirm={async () => {
                      setNotice(null);
                      await del("/entity/profile/photo");
                      onChange(null);
                      setNotice("Photo removed.");
                    }}
                  >
                    <p>Applications you sign in to will no longer receive a photo of you.</p>
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
