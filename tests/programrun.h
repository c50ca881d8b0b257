#pragma once
/** Running the program as a script would, for the tests of the command line. */

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

namespace testutil {

struct Run {
    int status = -1; ///< the exit status; -1 when the program crashed or did not finish
    QByteArray out;
    QByteArray err;
};

/** Runs program with no display and no QT_QPA_PLATFORM, as a bare script would; under LC_ALL=locale when one
 *  is given, in workingDirectory when one is given. inChild, when given, runs in the child before the
 *  program starts (Unix; to set a limit, say). */
inline Run runProgram(const QString& program, const QStringList& arguments, const QString& locale = {},
                      const QString& workingDirectory = {}, int timeoutMs = 300000,
                      const std::function<void()>& inChild = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!locale.isEmpty())
        env.insert(QStringLiteral("LC_ALL"), locale);
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    p.setProcessEnvironment(env);
    if (!workingDirectory.isEmpty())
        p.setWorkingDirectory(workingDirectory);
#ifdef Q_OS_UNIX
    if (inChild)
        p.setChildProcessModifier(inChild);
#endif
    p.start(program, arguments);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    Run r;
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace testutil
