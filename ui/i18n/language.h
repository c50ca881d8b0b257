#pragma once
/** The interface language: English (the source) or Simplified Chinese, switchable while running. */

#include <QString>
#include <QStringList>

#include <functional>

class QObject;

namespace ui::i18n {

/** The language codes the interface offers, "en" first. */
QStringList availableLanguages();
/** The name of a language in that language ("English", "简体中文"). */
QString nativeName(const QString& code);
/** The language in effect ("en" until another is applied). */
QString currentLanguage();
/** Installs the translators of our texts and Qt's own for code (removing the previous ones), which sends
 *  QEvent::LanguageChange to every widget, and names the program in that language (the application's display
 *  name, which the window system adds to every title); false and nothing changed for an unknown code. */
bool applyLanguage(const QString& code);
/** The language remembered in the settings, "en" when none. */
QString savedLanguage();
/** Remembers code for the next start. */
void saveLanguage(const QString& code);
/** Whether the embedded translation for code was found (always true for "en"); for tests. */
bool hasTranslation(const QString& code);

/** Calls apply now and again whenever the language changes, for as long as owner lives: the texts of
 *  widgets and actions set in apply follow the language without a restart. */
void onLanguageChange(QObject* owner, const std::function<void()>& apply);

}  // namespace ui::i18n
