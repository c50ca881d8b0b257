#pragma once
/** Window tests run apart from the user: their own application name, settings in a folder of the
 *  test's own, and QStandardPaths in test mode (data such as autosaves under ~/.qttest). */

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QString>

namespace testutil {

inline void isolateApplication(const QString& name, const QString& settingsFolder)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerTests"));
    QCoreApplication::setApplicationName(name);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsFolder);
}

}  // namespace testutil
