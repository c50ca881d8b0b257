#include "language.h"

#include <QCoreApplication>
#include <QFile>
#include <QGuiApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QPointer>
#include <QTranslator>
#include <QWindow>

#include <utility>
#include <vector>

namespace ui::i18n {

namespace {

const QString settingsKey = QStringLiteral("interface/language");

struct Translators {
    QTranslator* app = nullptr;
    QTranslator* qt = nullptr;
    QString current = QStringLiteral("en");
};

Translators& state()
{
    static Translators s;
    return s;
}

QString embeddedFile(const QString& code)
{
    return QStringLiteral(":/i18n/attention-explorer_%1.qm").arg(code);
}

void removeTranslator(QTranslator*& t)
{
    if (!t)
        return;
    QCoreApplication::removeTranslator(t);
    delete t;
    t = nullptr;
}

/** Hears QEvent::LanguageChange on the application, which installing or removing a translator sends,
 *  and calls the registered texts' setters. */
class Watcher : public QObject {
public:
    std::vector<std::pair<QPointer<QObject>, std::function<void()>>> entries;

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == QCoreApplication::instance() && event->type() == QEvent::LanguageChange) {
            std::erase_if(entries, [](const auto& e) { return e.first.isNull(); });
            const auto copy = entries;
            for (const auto& [owner, apply] : copy)
                if (owner)
                    apply();
        }
        return QObject::eventFilter(watched, event);
    }
};

Watcher* watcher()
{
    static QPointer<Watcher> w;
    if (!w && QCoreApplication::instance()) {
        w = new Watcher;
        w->setParent(QCoreApplication::instance());
        QCoreApplication::instance()->installEventFilter(w);
    }
    return w;
}

/** The program's name in the language in effect, as QGuiApplication::applicationDisplayName: the window system
 *  adds it after every window's title ("Teaching Mode — Attention Explorer"), so titles never name the program
 *  themselves. Titles already shown are sent again, since one that did not change is not sent by itself. */
void applyDisplayName()
{
    if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
        return;
    QGuiApplication::setApplicationDisplayName(QCoreApplication::translate("ui::i18n", "Attention Explorer"));
    for (QWindow* window : QGuiApplication::topLevelWindows())
        window->setTitle(window->title());
}

}  // namespace

void onLanguageChange(QObject* owner, const std::function<void()>& apply)
{
    apply();
    if (Watcher* w = watcher())
        w->entries.emplace_back(owner, apply);
}

QStringList availableLanguages()
{
    return {QStringLiteral("en"), QStringLiteral("zh_CN")};
}

QString nativeName(const QString& code)
{
    if (code == QLatin1String("zh_CN"))
        return QStringLiteral("简体中文");
    return QStringLiteral("English");
}

QString currentLanguage()
{
    return state().current;
}

bool hasTranslation(const QString& code)
{
    return code == QLatin1String("en") || QFile::exists(embeddedFile(code));
}

bool applyLanguage(const QString& code)
{
    if (!availableLanguages().contains(code))
        return false;
    Translators& s = state();
    // English is applied again each time: its locale, which numbers are shown in, must become the
    // default at the first call too, not stay the system's.
    if (code == s.current && s.app)
        return true;
    removeTranslator(s.app);
    removeTranslator(s.qt);
    s.current = code;
    if (code == QLatin1String("en")) {
        // Removing the translators has sent QEvent::LanguageChange already.
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        applyDisplayName();
        return true;
    }
    const QLocale locale(code);
    QLocale::setDefault(locale);
    auto* qt = new QTranslator;
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(s.qt = qt);
    else
        delete qt;
    auto* app = new QTranslator;
    if (app->load(embeddedFile(code)))
        QCoreApplication::installTranslator(s.app = app);
    else
        delete app;
    applyDisplayName();
    return true;
}

QString savedLanguage()
{
    const QString code = QSettings().value(settingsKey).toString();
    return availableLanguages().contains(code) ? code : QStringLiteral("en");
}

void saveLanguage(const QString& code)
{
    QSettings().setValue(settingsKey, code);
}

}  // namespace ui::i18n
