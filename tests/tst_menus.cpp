/** The main window's menus: every entry with its text, shortcuts and status tip, in English and in
 *  Chinese. Set AE_MENU_DUMP to a file to write the listing there (to compare two builds). */

#include "ui/i18n/language.h"
#include "ui/views/shell/mainwindow.h"

#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

namespace {

/** One menu entry: where it is, what it says, its keys and its status tip. */
struct Entry {
    QString path;
    QString text;
    QString keys;
    QString tip;
    bool separator = false;
};

void collect(QMenu* menu, const QString& path, QList<Entry>& out)
{
    for (QAction* action : menu->actions()) {
        if (action->isSeparator()) {
            out.append({path, QString(), QString(), QString(), true});
            continue;
        }
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            keys << key.toString(QKeySequence::PortableText);
        out.append({path, action->text(), keys.join(QLatin1Char(' ')), action->statusTip()});
        if (action->menu())
            collect(action->menu(), path + QStringLiteral(" > ") + action->text(), out);
    }
}

QList<Entry> menus(ui::MainWindow& w)
{
    QList<Entry> entries;
    for (QAction* top : w.menuBar()->actions()) {
        entries.append({QString(), top->text(), QString(), QString()});
        collect(top->menu(), top->text(), entries);
    }
    return entries;
}

QString listing(const QList<Entry>& entries)
{
    QStringList lines;
    for (const Entry& e : entries)
        lines << (e.separator ? e.path + QStringLiteral(" > ----") : QStringList{e.path, e.text, e.keys, e.tip}.join(QLatin1Char('\t')));
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace

class TestMenus : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_menus"));
        QSettings().clear();
    }

    void everyEntryInBothLanguages()
    {
        ui::MainWindow w;
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
        const QList<Entry> english = menus(w);
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("zh_CN")));
        const QList<Entry> chinese = menus(w);
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
        if (const QString dump = qEnvironmentVariable("AE_MENU_DUMP"); !dump.isEmpty()) {
            QFile file(dump);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write((listing(english) + listing(chinese)).toUtf8());
        }

        // The same entries in both languages, with the same keys; a text or tip in one is in the other.
        QCOMPARE(chinese.size(), english.size());
        QSet<QString> keys;
        for (qsizetype i = 0; i < english.size(); ++i) {
            const Entry& en = english[i];
            const Entry& zh = chinese[i];
            const QString at = en.path + QStringLiteral(" > ") + en.text;
            QCOMPARE(zh.separator, en.separator);
            QCOMPARE(zh.keys, en.keys);
            QCOMPARE(zh.tip.isEmpty(), en.tip.isEmpty());
            QVERIFY2(en.separator || !en.text.isEmpty(), qPrintable(at));
            QVERIFY2(en.separator || !zh.text.isEmpty(), qPrintable(at));
            // Every text is translated but names: presets, languages in their own words, colour maps.
            // The language menu's title is written in both languages, so that it reads the same in either.
            static const QStringList names{QStringLiteral("English"), QStringLiteral("简体中文"), QStringLiteral("Viridis"),
                                           QStringLiteral("Magma"), QStringLiteral("Cividis"),
                                           QStringLiteral("&Language / 语言")};
            if (!en.separator && !names.contains(en.text))
                QVERIFY2(zh.text != en.text, qPrintable(QStringLiteral("not translated: ") + at));
            // No key starts two entries.
            for (const QString& key : en.keys.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
                QVERIFY2(!keys.contains(key), qPrintable(key + QStringLiteral(" twice, at ") + at));
                keys.insert(key);
                // a key a hand finds: no punctuation that lies past the digits in the character table
                QVERIFY2(!QRegularExpression(QStringLiteral("[:;<=>?@]$")).match(key).hasMatch(),
                         qPrintable(key + QStringLiteral(" at ") + at));
            }
        }
        // The window's own entries with their keys (standard keys as this platform binds them).
        auto standard = [](QKeySequence::StandardKey key, const QString& fallback = QString()) {
            QStringList list;
            for (const QKeySequence& k : QKeySequence::keyBindings(key))
                list << k.toString(QKeySequence::PortableText);
            return list.isEmpty() ? fallback : list.join(QLatin1Char(' '));
        };
        const QStringList expected{
            QStringLiteral("&File\t&New\t%1\tStart again from the worked example").arg(standard(QKeySequence::New)),
            QStringLiteral("&File\t&Open…\t%1\tOpen a session file").arg(standard(QKeySequence::Open)),
            QStringLiteral("&File\tOpen &Recent\t\t"),
            QStringLiteral("&File\t&Save\t%1\t").arg(standard(QKeySequence::Save)),
            QStringLiteral("&File\tSave &As…\t%1\t").arg(standard(QKeySequence::SaveAs)),
            QStringLiteral("&File\t&Export Heatmap…\tCtrl+E\tWrite the heatmap as shown to a PNG, SVG or PDF file"),
            QStringLiteral("&File\t&Copy Heatmap Image\tCtrl+Shift+C\tCopy the heatmap to the clipboard as an image"),
            QStringLiteral("&File\tExport &Report (PDF)…\tCtrl+Shift+P\tEvery step with its formula, its matrices as numbers and heatmaps, and an explanation"),
            QStringLiteral("&File\tExport &Handout…\tCtrl+Shift+H\tOne page to hand out: the tokens, the heatmap of the weights and the seven formulas"),
            QStringLiteral("&File\tExport Step &Matrices…\tCtrl+Shift+M\tOne CSV file per step and head, and the whole computation as JSON, into a folder"),
            QStringLiteral("&File\tExport &PyTorch Code…\tCtrl+Alt+E\t"),
            QStringLiteral("&File\tCopy as PyTorch &Code\tCtrl+Alt+C\tPython that reproduces every step of this session with torch"),
            QStringLiteral("&File\t&Import Matrix…\tCtrl+I\tReplace the matrix of the current editor tab with one from a .npy or .csv file"),
            QStringLiteral("&File\tExport Mat&rix…\tCtrl+Shift+I\tWrite the matrix of the current editor tab as .npy or .csv"),
            QStringLiteral("&File\t&Quit\t%1\t").arg(standard(QKeySequence::Quit, QStringLiteral("Ctrl+Q"))),
            QStringLiteral("&Edit\t&Undo\t%1\t").arg(standard(QKeySequence::Undo)),
            QStringLiteral("&View > &Panels\t&Reset Layout\tCtrl+Shift+R\t"),
            QStringLiteral("&View > &Panels\tSteps\tCtrl+Shift+3\t"),
            QStringLiteral("&View\t&Teaching Mode\tF5\tStep through the seven steps full screen, one per slide"),
            QStringLiteral("&View\t&Why Divide by √d_k?\tCtrl+Shift+K\t"),
            QStringLiteral("&Help\t&Quick Start\t\tThree things to try first"),
            QStringLiteral("&Help\t&What You Can Do\t\tEverything this program does, in short"),
            QStringLiteral("&Help\t&Keyboard Shortcuts\t\tEvery key of the menus"),
            QStringLiteral("&Presets\tThe Illustrated: Self-Attention example\tCtrl+Alt+1\tThe worked example of the article \"Illustrated: Self-Attention\": 3 tokens, d_model 4, d_k 3, scores not scaled"),
            QStringLiteral("&View\t&Language / 语言\t\t"),
            QStringLiteral("&Help\t&About Attention Explorer\t%1\t").arg(standard(QKeySequence::HelpContents)),
            QStringLiteral("&Help\tAbout &Qt\tShift+F1\t"),
        };
        const QString all = listing(english);
        for (const QString& line : expected)
            QVERIFY2(all.contains(line + QLatin1Char('\n')), qPrintable(line));
    }
};

QTEST_MAIN(TestMenus)
#include "tst_menus.moc"
