import { Injectable } from '@nestjs/common';
import countries from 'i18n-iso-countries';
import english from 'i18n-iso-countries/langs/en.json';

/**
 * ISO 3166-1 alpha-2 codes and English names from i18n-iso-countries (a maintained package that
 * follows the standard's changes), never a hand-typed list.
 */
@Injectable()
export class CountryCatalog {
  private readonly list: Array<{ code: string; name: string }>;

  constructor() {
    countries.registerLocale(english);
    this.list = Object.keys(countries.getAlpha2Codes())
      .map((code) => ({ code, name: countries.getName(code, 'en') ?? code }))
      .sort((a, b) => a.code.localeCompare(b.code));
  }

  all(): Array<{ code: string; name: string }> {
    return this.list;
  }

  isCountry(code: string): boolean {
    return /^[A-Z]{2}$/.test(code) && countries.isValid(code);
  }
}
