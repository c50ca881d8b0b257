// Writing a file so that a failure loses nothing: the one path every save, autosave and export takes.
#include "ui/render/atomicwrite.h"
#include "testutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

namespace {

/** The names in folder, hidden ones included, sorted. */
QStringList entries(const QString& folder)
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

}  // namespace

class TestAtomicWrite : public QObject {
    Q_OBJECT

private slots:
    /** A file in a folder that does not exist: refused, the message names the path, no folder is made. */
    void missingFolder()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("missing/s.json"));
        QString error;
        QVERIFY(!render::writeAtomically(path, QByteArrayLiteral("{}"), &error));
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY(entries(dir.path()).isEmpty());
    }

    /** A folder where the file should go: refused, the folder stays and nothing is left beside it. */
    void folderInTheWay()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString taken = dir.filePath(QStringLiteral("taken"));
        QVERIFY(QDir().mkdir(taken));
        QString why;
        QVERIFY(!render::replaceFile(taken, QByteArrayLiteral("{}"), &why));
        QVERIFY(!why.isEmpty());
        QVERIFY(QFileInfo(taken).isDir());
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("taken")});
    }

    /** A longer old file is replaced whole, under a name with non-ASCII letters, twice; nothing stays beside it. */
    void replacesWhole()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString name = QStringLiteral("ünï session.json");
        const QString path = dir.filePath(name);
        QVERIFY(testutil::writeText(path, QByteArray(1 << 20, 'x')));
        for (const QByteArray& bytes : {QByteArrayLiteral("{\"a\": 1}\n"), QByteArrayLiteral("{}\n")}) {
            QString why;
            QVERIFY2(render::replaceFile(path, bytes, &why), qPrintable(why));
            QCOMPARE(testutil::readText(path), bytes);
            QCOMPARE(entries(dir.path()), QStringList{name});
        }
    }

    /** A writer that fails leaves the old file as it was and says why, with the path. */
    void failedWriterKeepsTheOldFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("old.svg"));
        QVERIFY(testutil::writeText(path, QByteArrayLiteral("old")));
        QString error;
        const bool written = render::writeAtomically(
            path,
            [](QIODevice* device, QString* why) {
                device->write("half of it");
                *why = QStringLiteral("the painter gave up");
                return false;
            },
            &error);
        QVERIFY(!written);
        QVERIFY2(error.contains(path) && error.contains(QStringLiteral("the painter gave up")), qPrintable(error));
        QCOMPARE(testutil::readText(path), QByteArrayLiteral("old"));
        QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("old.svg")});
    }
};

QTEST_APPLESS_MAIN(TestAtomicWrite)
#include "tst_atomicwrite.moc"
