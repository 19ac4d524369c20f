/** RFC 9457 problem details, as the provider's APIs answer an error (both frontends read them). */

/** The message for one field of the request (`email`, `redirectUris[1]`). */
export interface FieldError {
  field: string;
  message: string;
}

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  errors?: FieldError[];
}
