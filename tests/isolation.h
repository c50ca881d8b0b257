#pragma once
/** Window tests run apart from the user: their own application name, settings in a folder of the
 *  test's own, a home folder of their own, and QStandardPaths in test mode (data such as autosaves under
 *  the test's home/.qttest). Nothing a test writes lands in the user's home. */

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QString>

namespace testutil {

/** The variable that hands a test's home folder down to the processes it starts, so that a child window (as
 *  tst_autosave's) writes where its parent looks. */
inline const char* testHomeVariable = "AE_TEST_HOME";

inline void isolateApplication(const QString& name, const QString& settingsFolder)
{
    QString home = qEnvironmentVariable(testHomeVariable);
    if (home.isEmpty()) {
        home = settingsFolder + QStringLiteral("/home");
        qputenv(testHomeVariable, QFile::encodeName(home));
    }
    QDir().mkpath(home);
    qputenv("HOME", QFile::encodeName(home));  // QDir::homePath() and QStandardPaths read it on every call
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerTests"));
    QCoreApplication::setApplicationName(name);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsFolder);
}

}  // namespace testutil
