/**
 * The face step, chosen on the password step ("Sign in with your face"), or shown after
 * the password when the deployment takes the face as a second factor
 * (`SVC_FACE_SIGNIN=second_factor`; then there is no email field and no way back to the
 * password): the email and one photo of the person's face, taken with the camera (getUserMedia: a preview and
 * "Take photo") or chosen as a file. The photo goes as base64 to
 * `POST /api/v1/auth/biometric`, whose answer moves the flow on exactly as the password
 * step's does (code, consent or back to the application).
 *
 * The camera is on only between "Use the camera" and "Take photo" (or leaving the step);
 * nothing is kept once the step is left. Photos are scaled down in the browser to what
 * the server would use anyway, so the upload stays small.
 */
import { ApiError, biometric } from "../api";
import { Form, addDescribedBy, button, h, newId, removeDescribedBy, screen, showScreen, statusLine, whenLeft } from "../dom";
import { t } from "../i18n";
import { faceProblem } from "../messages";
import { clientLine } from "./client";
import { emailField } from "./email";
import type { StepContext } from "./step";

/** The server scales every image to at most this on its longer side. */
const MAX_SIDE = 1024;
/** A JPEG or PNG up to this size and MAX_SIDE goes as it is; anything else is re-encoded. */
const SEND_AS_IS_BYTES = 2 * 1024 * 1024;
const JPEG_QUALITY = 0.92;

/** The step's texts, read from the catalogue each time (the language may change). */
const TEXT = {
  get hint(): string {
    return t("face.hint");
  },
  get useCamera(): string {
    return t("face.useCamera");
  },
  get retryCamera(): string {
    return t("face.retryCamera");
  },
  get anotherPhoto(): string {
    return t("face.anotherPhoto");
  },
  get starting(): string {
    return t("face.starting");
  },
  get live(): string {
    return t("face.live");
  },
  get notReady(): string {
    return t("face.notReady");
  },
  get taken(): string {
    return t("face.taken");
  },
  get chosen(): string {
    return t("face.chosen");
  },
  get stopped(): string {
    return t("face.stopped");
  },
  get ended(): string {
    return t("face.ended");
  },
  get unsupported(): string {
    return t("face.unsupported");
  },
  get noCamera(): string {
    return t("face.noCamera");
  },
  get refused(): string {
    return t("face.refused");
  },
  get busy(): string {
    return t("face.busy");
  },
  get failed(): string {
    return t("face.failed");
  },
  get noPhoto(): string {
    return t("face.noPhoto");
  },
  get unreadable(): string {
    return t("face.unreadable");
  },
  get tooLarge(): string {
    return t("face.tooLarge");
  },
  get rejected(): string {
    return t("face.rejected");
  },
  get checking(): string {
    return t("face.checking");
  },
};

function errorName(error: unknown): string {
  if (typeof error === "object" && error !== null && "name" in error && typeof error.name === "string") {
    return error.name;
  }
  return "";
}

/** What to tell the person when getUserMedia fails. */
function cameraProblem(error: unknown): string {
  switch (errorName(error)) {
    case "NotAllowedError":
    case "SecurityError":
      return TEXT.refused;
    case "NotFoundError":
    case "OverconstrainedError":
      return TEXT.noCamera;
    case "NotReadableError":
      return TEXT.busy;
    default:
      return TEXT.failed;
  }
}

function cameraSupported(): boolean {
  return typeof navigator.mediaDevices?.getUserMedia === "function";
}

/** False only when the browser says there is no camera at all (null: cannot tell). */
async function hasCamera(): Promise<boolean | null> {
  try {
    const devices = await navigator.mediaDevices.enumerateDevices();
    return devices.some((d) => d.kind === "videoinput");
  } catch {
    return null;
  }
}

/** Draws `source` at most MAX_SIDE on its longer side and encodes it as JPEG. */
function encodeJpeg(source: CanvasImageSource, width: number, height: number): Promise<Blob | null> {
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
  const canvas = h("canvas");
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext("2d");
  if (context === null) {
    return Promise.resolve(null);
  }
  context.fillStyle = "#fff"; // a transparent PNG would otherwise turn black
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", JPEG_QUALITY));
}

/** The chosen file as the server should get it, or null when the browser cannot read it. */
async function prepareFile(file: File): Promise<Blob | null> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return null;
  }
  try {
    const asIs = (file.type === "image/jpeg" || file.type === "image/png") && file.size <= SEND_AS_IS_BYTES;
    if (asIs && Math.max(bitmap.width, bitmap.height) <= MAX_SIDE) {
      return file;
    }
    return await encodeJpeg(bitmap, bitmap.width, bitmap.height);
  } finally {
    bitmap.close();
  }
}

/** The bytes of `blob` as plain base64 (no `data:` prefix). */
function toBase64(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.addEventListener("load", () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    });
    reader.addEventListener("error", () => reject(reader.error ?? new Error("read failed")));
    reader.readAsDataURL(blob);
  });
}

/** The front camera into a <video>: on between start() and stop(). */
class Camera {
  private stream: MediaStream | null = null;

  constructor(
    readonly video: HTMLVideoElement,
    private readonly onEnded: () => void,
  ) {}

  get live(): boolean {
    return this.stream !== null;
  }

  async start(): Promise<void> {
    this.stop();
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      // No height: the camera keeps its own shape rather than being cropped to one.
      video: { facingMode: "user", width: { ideal: 1280 } },
    });
    this.stream = stream;
    for (const track of stream.getVideoTracks()) {
      track.addEventListener("ended", () => {
        if (this.stream === stream) {
          this.stop();
          this.onEnded();
        }
      });
    }
    this.video.srcObject = stream;
    try {
      await this.video.play();
    } catch (error) {
      this.stop();
      throw error;
    }
  }

  /** One frame as JPEG, or null while the video has no picture yet. */
  async capture(): Promise<Blob | null> {
    const { videoWidth: width, videoHeight: height } = this.video;
    if (!this.live || width === 0 || height === 0) {
      return null;
    }
    return encodeJpeg(this.video, width, height);
  }

  stop(): void {
    if (this.stream !== null) {
      for (const track of this.stream.getTracks()) {
        track.stop();
      }
      this.stream = null;
    }
    this.video.srcObject = null;
  }
}

interface Photo {
  blob: Blob;
  url: string;
}

export interface FaceStepOptions {
  /** The face is the second step: the person already gave their email and password. */
  afterPassword?: boolean;
}

export function showFace(flow: StepContext, options: FaceStepOptions = {}): void {
  screen(() => renderFace(flow, options));
}

function renderFace(flow: StepContext, options: FaceStepOptions): void {
  const afterPassword = options.afterPassword === true;
  const email = emailField(flow);

  // --- the image control: camera, file, preview, and its own error line ---
  const hint = h("p", { id: newId("face-hint"), class: "hint" }, TEXT.hint);
  const imageError = h("p", { id: newId("face-error"), class: "field-error" });
  imageError.hidden = true;

  const video = h("video", { class: "camera-preview mirrored", playsinline: true, muted: true, "aria-label": t("face.cameraPreview") });
  video.muted = true;
  video.hidden = true;
  const cameraStatus = statusLine();
  const cameraButton = h("button", { type: "button", class: "secondary-button" }, TEXT.useCamera);
  const takeButton = h("button", { type: "button" }, t("face.takePhoto"));
  const stopButton = h("button", { type: "button", class: "secondary-button" }, t("face.stopCamera"));
  const liveActions = h("div", { class: "actions" }, stopButton, takeButton);
  liveActions.hidden = true;

  const preview = h("img", { class: "photo-preview", alt: t("face.photoAlt") });
  preview.hidden = true;

  const fileId = newId("face-file");
  const fileInput = h("input", { id: fileId, name: "image", type: "file", accept: "image/*", capture: "user" });
  const fileField = h("div", { class: "field" }, h("label", { for: fileId }, t("face.choosePhoto")), fileInput);

  const described = [fileInput, cameraButton, takeButton];
  for (const element of described) {
    addDescribedBy(element, hint.id);
  }

  // The picture (live or taken) first, then what is wrong with it, then the ways to give one.
  const fieldset = h(
    "fieldset",
    { class: "photo" },
    h("legend", {}, t("face.legend")),
    hint,
    video,
    preview,
    imageError,
    h("div", { class: "camera" }, cameraStatus, liveActions, cameraButton),
    fileField,
  );

  // --- state ---
  let photo: Photo | null = null;
  /** Whether the last photo came from the camera (else from a file). */
  let fromCamera = false;
  let preparing: Promise<void> | null = null;
  /** Bumped by every camera start, file choice and leaving: late answers are dropped. */
  let generation = 0;
  let left = false;
  /** False once the browser says there is no camera (devicechange asks again). */
  let cameraFound: boolean | null = null;
  let cameraState: "off" | "starting" | "live" = "off";

  const camera = new Camera(video, () => {
    showCamera("off");
    cameraButton.textContent = TEXT.retryCamera;
    say(TEXT.ended, true);
  });

  /** The line under the picture; `problem` makes it stand out (camera refused, absent…). */
  function say(text: string, problem = false): void {
    cameraStatus.textContent = text;
    cameraStatus.classList.toggle("notice", problem && text !== "");
  }

  function showCamera(state: typeof cameraState): void {
    cameraState = state;
    video.hidden = state !== "live";
    liveActions.hidden = state !== "live";
    cameraButton.hidden = state !== "off" || !cameraSupported() || cameraFound === false;
  }

  function setImageError(message: string | null): void {
    if (message !== null && (cameraStatus.textContent === TEXT.chosen || cameraStatus.textContent === TEXT.taken)) {
      say(""); // "Select Sign in to continue" no longer holds
    }
    imageError.textContent = message ?? "";
    imageError.hidden = message === null;
    for (const element of described) {
      if (message === null) {
        removeDescribedBy(element, imageError.id);
      } else {
        addDescribedBy(element, imageError.id);
      }
    }
    if (message === null) {
      fileInput.removeAttribute("aria-invalid");
    } else {
      fileInput.setAttribute("aria-invalid", "true");
    }
  }

  /** Moves focus to the control the person most likely uses next to give another image. */
  function focusImageControl(): void {
    if (fromCamera && !cameraButton.hidden) {
      cameraButton.focus();
    } else {
      fileInput.focus();
    }
  }

  function setPhoto(blob: Blob | null, taken = false): void {
    if (photo !== null) {
      URL.revokeObjectURL(photo.url);
    }
    photo = blob === null ? null : { blob, url: URL.createObjectURL(blob) };
    fromCamera = taken;
    preview.hidden = photo === null;
    // A camera photo is shown mirrored, as the preview was; it is sent as taken.
    preview.classList.toggle("mirrored", taken);
    if (photo === null) {
      preview.removeAttribute("src");
    } else {
      preview.src = photo.url;
    }
  }

  /** Stops the camera and forgets the photo: called on every way out of the step. */
  function leave(): void {
    left = true;
    generation += 1;
    camera.stop();
    setPhoto(null);
    navigator.mediaDevices?.removeEventListener("devicechange", checkCamera);
  }

  async function checkCamera(): Promise<void> {
    if (!cameraSupported()) {
      showCamera("off");
      say(TEXT.unsupported, true);
      return;
    }
    const found = await hasCamera();
    if (left || cameraState !== "off") {
      return;
    }
    cameraFound = found;
    showCamera("off");
    if (found === false) {
      say(TEXT.noCamera, true);
    } else if (cameraStatus.textContent === TEXT.noCamera) {
      say("");
    }
  }

  async function startCamera(): Promise<void> {
    const run = ++generation;
    setPhoto(null);
    showCamera("starting");
    say(TEXT.starting);
    try {
      await camera.start();
    } catch (error) {
      if (run !== generation) {
        return;
      }
      showCamera("off");
      cameraButton.textContent = TEXT.retryCamera;
      say(cameraProblem(error), true);
      fileInput.focus();
      return;
    }
    if (run !== generation) {
      camera.stop();
      return;
    }
    showCamera("live");
    say(TEXT.live);
    takeButton.focus();
  }

  async function takePhoto(): Promise<void> {
    const blob = await camera.capture();
    if (blob === null) {
      say(TEXT.notReady);
      return;
    }
    generation += 1;
    camera.stop();
    fileInput.value = "";
    setImageError(null);
    setPhoto(blob, true);
    showCamera("off");
    cameraButton.textContent = TEXT.anotherPhoto;
    say(TEXT.taken);
    submit.focus();
  }

  async function chooseFile(): Promise<void> {
    const file = fileInput.files?.[0];
    generation += 1;
    camera.stop();
    showCamera("off");
    cameraButton.textContent = TEXT.useCamera;
    setImageError(null);
    if (file === undefined) {
      setPhoto(null);
      say("");
      return;
    }
    const blob = await prepareFile(file);
    if (left || fileInput.files?.[0] !== file) {
      return;
    }
    setPhoto(blob);
    if (blob === null) {
      setImageError(TEXT.unreadable);
      say("");
    } else {
      say(TEXT.chosen);
    }
  }

  cameraButton.addEventListener("click", () => void startCamera());
  takeButton.addEventListener("click", () => void takePhoto());
  stopButton.addEventListener("click", () => {
    generation += 1;
    camera.stop();
    showCamera("off");
    cameraButton.textContent = TEXT.useCamera;
    say(TEXT.stopped);
    cameraButton.focus();
  });
  fileInput.addEventListener("change", () => {
    const task = chooseFile();
    preparing = task;
    void task.finally(() => {
      if (preparing === task) {
        preparing = null;
      }
    });
  });

  // --- the form ---
  const submit = button(t("face.submit"));
  const progress = statusLine();
  const form = new Form(afterPassword ? [] : [email], [fieldset, submit, progress], async (form) => {
    form.clearErrors();
    if (preparing !== null) {
      await preparing;
    }
    const address = email.value.trim();
    const missing = [];
    if (afterPassword) {
      // the challenge already names the person
    } else if (address === "") {
      missing.push({ field: "email", message: t("field.email.missing") });
    } else if (!address.includes("@")) {
      missing.push({ field: "email", message: t("field.email.invalid") });
    }
    const sent = photo;
    if (sent === null) {
      // Keeps a message about the chosen file (unreadable) rather than a vaguer one.
      if (imageError.hidden) {
        setImageError(TEXT.noPhoto);
      }
    } else {
      setImageError(null);
    }
    if (form.showFieldErrors(missing)) {
      return false;
    }
    if (sent === null) {
      focusImageControl();
      return false;
    }
    if (!afterPassword) {
      flow.email = address;
    }
    progress.textContent = TEXT.checking;
    try {
      const who = afterPassword ? null : address;
      const result = await biometric(flow.challenge.id, who, await toBase64(sent.blob));
      leave();
      return await flow.advance(result);
    } catch (error) {
      progress.textContent = "";
      if (!(error instanceof ApiError)) {
        flow.fail(error, form);
      } else if (error.status === 401 && afterPassword) {
        form.showError(t("face.doesNotMatch"), [fileInput]);
      } else if (error.status === 401) {
        // One message whatever the cause, as on the password step.
        form.showError(t("face.wrong"), [email.input, fileInput]);
      } else if (error.status === 422) {
        const errors = error.problem.errors ?? [];
        // A refusal the page knows (no face, several…) in the current language; else as sent.
        const onImage = errors
          .filter((e) => e.field === "image")
          .map((e) => faceProblem(error.problem.code, e.message) ?? e.message);
        const others = errors.filter((e) => e.field !== "image");
        if (others.length > 0) {
          form.showFieldErrors(others);
        }
        if (onImage.length > 0 || others.length === 0) {
          const detail = error.problem.detail ?? "";
          setImageError(onImage.join(" ") || faceProblem(error.problem.code, detail) || detail || TEXT.rejected);
          if (others.length === 0) {
            focusImageControl();
          }
        }
      } else if (error.status === 413) {
        setImageError(TEXT.tooLarge);
        focusImageControl();
      } else if (error.status === 503 && afterPassword) {
        flow.fail(error, form);
      } else if (error.status === 503) {
        // No face sign-in here after all: back to the password, which says why.
        leave();
        flow.faceUnavailable = true;
        flow.show("password");
      } else {
        flow.fail(error, form);
      }
      return false;
    }
  });

  const back = h("button", { type: "button", class: "secondary-button" }, t("face.usePassword"));
  back.addEventListener("click", () => {
    flow.email = email.value.trim();
    leave();
    flow.show("password");
  });

  // Redrawn in another language or left some other way: the camera goes off.
  whenLeft(leave);
  showCamera("off");
  showScreen(
    "face",
    afterPassword ? t("face.confirmTitle") : t("face.title"),
    clientLine(flow.challenge),
    afterPassword && h("p", { class: "hint" }, t("face.afterPasswordHint")),
    form.element,
    !afterPassword && h("div", { class: "alternative" }, back),
  );
  if (cameraSupported()) {
    navigator.mediaDevices.addEventListener("devicechange", checkCamera);
  }
  void checkCamera();
}
