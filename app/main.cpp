#include "commandline.h"
#include "windowstart.h"

#include "core/tensor/allocator.h"
#include "core/formats/jsonread.h"
#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "core/text/tokenizer.h"
#include "ui/i18n/language.h"
#include "ui/views/shell/mainwindow.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QIcon>
#include <QMessageBox>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include <unistd.h>

namespace {

void setIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorer"));
    QCoreApplication::setApplicationName(QStringLiteral("attention-explorer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(AE_VERSION));
    // The display name, which every window's title ends with, is set in the interface language by applyLanguage.
    QGuiApplication::setDesktopFileName(QStringLiteral("attention-explorer"));
}

QStringList argumentList(int argc, char** argv)
{
    QStringList list;
    for (int i = 0; i < argc; ++i)
        list << QString::fromLocal8Bit(argv[i]);
    return list;
}

/** Without a desktop session there is no XDG_RUNTIME_DIR, and Qt warns about it on every run;
 *  a private folder of our own keeps standard error for messages that matter. */
void quietRuntimeDirectory()
{
    if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
        return;
    const QString dir = QDir::tempPath() + QStringLiteral("/attention-explorer-runtime-") + QString::number(getuid());
    if (QDir().mkpath(dir) && QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(dir));
}

bool displayAvailable()
{
    return !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY")
        || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

/** The refusal of a --text whose bytes are not UTF-8 (Qt would turn them into U+FFFD unseen), as a session file's
 *  text is refused; empty when every --text is UTF-8. */
std::string invalidTextArgument(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        std::string_view value;
        if (arg == "--text" && i + 1 < argc)
            value = argv[i + 1];
        else if (arg.starts_with("--text="))
            value = arg.substr(7);
        else
            continue;
        if (const auto bad = core::firstInvalidUtf8(value))
            return "--text: not valid UTF-8 (byte " + std::to_string(*bad) + " is " +
                   core::messageExcerpt(value.substr(*bad, 1)) + "); give the text in UTF-8";
    }
    return {};
}

int run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv)
{
    // No exception leaves the program: whatever escapes is said in one line, never "terminate called…".
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        std::fputs("attention-explorer: not enough memory\n", stderr);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attention-explorer: %s\n", core::messageExcerpt(e.what(), 200).c_str());
    }
    return app::ExitFailed;
}

namespace {

int run(int argc, char** argv)
{
    core::keepFreedMemory();  // before any thread starts
    if (const std::string refusal = invalidTextArgument(argc, argv); !refusal.empty()) {
        std::fprintf(stderr, "attention-explorer: %s\n", refusal.c_str());
        return app::ExitRefused;
    }
    const QStringList arguments = argumentList(argc, argv);

    if (app::isHeadlessRequest(arguments)) {
        // Computing and exporting need fonts and painters, never a screen.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        quietRuntimeDirectory();
        QGuiApplication application(argc, argv);
        setIdentity();
        // Scripted output stays English unless --lang asks otherwise; the saved choice is the window's.
        const QString language = app::languageArgument(arguments);
        ui::i18n::applyLanguage(language.isEmpty() ? QStringLiteral("en") : language);
        return app::runCommandLine(arguments, nullptr);
    }

    if (!displayAvailable()) {
        QStringList calls = app::headlessCalls();
        const QString last = calls.takeLast();
        const QString message = QStringLiteral("attention-explorer: no display to open the window on (DISPLAY is not "
                                               "set); without a window use %1 (see --help), or run the window under "
                                               "xvfb-run\n")
                                    .arg(calls.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last);
        std::fputs(message.toLocal8Bit().constData(), stderr);
        return app::ExitFailed;
    }

    QApplication application(argc, argv);
    setIdentity();
    const QString language = app::languageArgument(arguments);
    ui::i18n::applyLanguage(language.isEmpty() ? ui::i18n::savedLanguage() : language);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/attention-explorer.svg")));
    app::WindowSource source;
    const int status = app::runCommandLine(arguments, &source);
    if (status >= 0)
        return status;

    ui::MainWindow window;
    window.show();
    app::openWindowSource(window, source);
    // A window that crashed or was killed may have left unsaved changes behind: offer them back.
    // Scripts that drive the window set ATTENTION_EXPLORER_NO_RECOVERY=1 to skip the question, and the
    // quick start of a first start with it.
    if (qEnvironmentVariableIntValue("ATTENTION_EXPLORER_NO_RECOVERY") == 0) {
        window.offerRecovery();
        window.showQuickStartIfFirst();
    }
    return application.exec();
}

}  // namespace
