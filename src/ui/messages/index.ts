/** The messages for a locale: its language's module, with the locale's own numbers and plural rules. */
import { type Catalogue, createSay, type Language, languageOf, type Messages } from "./catalogue.js";
import { en } from "./en.js";
import { es } from "./es.js";
import { pt } from "./pt.js";

export type { Messages } from "./catalogue.js";
export { languageOf, snapshotSeconds } from "./catalogue.js";

const CATALOGUES: Record<Language, Catalogue> = { en, es, pt };

export function messagesFor(locale: string): Messages {
  return CATALOGUES[languageOf(locale)](createSay(locale));
}
