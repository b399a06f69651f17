// A template that cannot be loaded (names the file, line and what is wrong) or cannot be
// rendered for one Profile (names the template and the missing value).
export class TemplateError extends Error {
  override name = 'TemplateError';
}
