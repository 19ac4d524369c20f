/**
 * One image sent as the body of a PUT (the profile photo, the face): the chosen file, the
 * submission that sends it (upload errors in the person's words, next to the input), and
 * the props of the file input, which is emptied after an upload by a new `inputKey`.
 */
import { useState } from "react";
import { put } from "../../api/client";
import { useSubmit } from "../../ui/form";
import { explainUpload } from "./api";

export function useImageUpload<T>({
  path,
  field,
  unavailable,
  refuse,
  onStart,
  onUploaded,
}: {
  path: string;
  /** The name errors are filed under ("photo", "face"). */
  field: string;
  /** The sentence for a 503. */
  unavailable: string;
  /** Why the chosen file (or none) cannot be sent, or null. */
  refuse: (file: File | null) => string | null;
  onStart?: () => void;
  onUploaded: (answer: T) => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const submission = useSubmit(
    async () => {
      onStart?.();
      let answer: T;
      try {
        answer = await put<T>(path, file);
      } catch (error) {
        throw explainUpload(error, unavailable, field);
      }
      setFile(null);
      setInputKey((key) => key + 1);
      onUploaded(answer);
    },
    () => {
      const why = refuse(file);
      return why ? { [field]: why } : {};
    },
  );
  const input = {
    type: "file",
    error: submission.fieldError(field),
    onChange: (event: { currentTarget: { files: FileList | null } }) => {
      setFile(event.currentTarget.files?.[0] ?? null);
      submission.reset();
    },
  };
  return { submission, inputKey, input };
}
