#pragma once
/** Finding a Python interpreter that has a module, for the tests that cross-check with NumPy or PyTorch. */

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace testutil {

/** The first "python3" on PATH that can import module, or an empty string. Every python3 on PATH is
 *  tried, so a version manager's shim without the module does not hide the system's interpreter. */
inline QString pythonWith(const QString& module)
{
    const QStringList dirs = qEnvironmentVariable("PATH").split(QLatin1Char(':'), Qt::SkipEmptyParts);
    QStringList tried;
    for (const QString& dir : dirs) {
        const QFileInfo candidate(QDir(dir).filePath(QStringLiteral("python3")));
        if (!candidate.isExecutable())
            continue;
        const QString path = candidate.canonicalFilePath();
        if (path.isEmpty() || tried.contains(path))
            continue;
        tried << path;
        QProcess p;
        p.start(candidate.absoluteFilePath(), {QStringLiteral("-c"), QStringLiteral("import ") + module});
        if (p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
            return candidate.absoluteFilePath();
    }
    return {};
}

/** Runs python with a script on standard input and arguments; returns its standard output, or sets
 *  error to its standard error and exit status. */
inline QByteArray runPython(const QString& python, const QByteArray& script, const QStringList& arguments,
                            QString* error, int timeoutMs = 240000)
{
    QProcess p;
    p.start(python, QStringList{QStringLiteral("-")} + arguments);
    p.write(script);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        *error = QStringLiteral("python did not finish");
        return {};
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QStringLiteral("python failed with status %1: %2")
                     .arg(p.exitCode())
                     .arg(QString::fromUtf8(p.readAllStandardError()));
        return {};
    }
    error->clear();
    return p.readAllStandardOutput();
}

/** Runs the PyTorch code the program wrote for a session (codePath) and returns, as JSON text, what it computed:
 *  {"weights": [the n × n weights of each head], "output": the output}; or sets error. */
inline QByteArray runExportedCode(const QString& python, const QString& codePath, QString* error)
{
    return runPython(python,
                     "import json, runpy, sys\n"
                     "g = runpy.run_path(sys.argv[1])\n"
                     "w = g['weights']\n"
                     "print(json.dumps({'weights': [t.tolist() for t in (w if isinstance(w, list) else [w])],"
                     " 'output': g['output'].tolist()}))\n",
                     {codePath}, error);
}

}  // namespace testutil
