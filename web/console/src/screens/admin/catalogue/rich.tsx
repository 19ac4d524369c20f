/**
 * A catalogue text with React parts in it ("User created: <link>."): the words come from the
 * catalogue, the parts are placed where the language's sentence puts them.
 */
import type { ReactNode } from "react";
import { intl } from "../../../i18n";

export function rich(id: string, values: Record<string, ReactNode>): ReactNode {
  return intl().formatMessage({ id }, values);
}
