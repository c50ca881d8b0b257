/** The interface language: switching to Simplified Chinese and back while running, remembering the
 *  choice, Qt's own texts, and a Chinese translation file with every message finished. */

#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/i18n/language.h"
#include "ui/views/mainwindow.h"
#include "ui/views/optionspanel.h"
#include "ui/views/stepspanel.h"
#include "ui/views/teachingview.h"

#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QXmlStreamReader>

namespace {

/** The texts the test compares across languages, read from the widgets. */
struct Texts {
    QStringList menus;
    QString optionsDock, scaleBox, temperatureLabel, stepTitle, slideTitle, qtCancel;

    bool operator==(const Texts&) const = default;
};

Texts readTexts(ui::MainWindow& w, ui::TeachingView& teaching)
{
    Texts t;
    for (QAction* a : w.menuBar()->actions())
        t.menus << a->text();
    t.optionsDock = w.findChild<QDockWidget*>(QStringLiteral("optionsDock"))->windowTitle();
    t.scaleBox = w.findChild<QCheckBox*>(QStringLiteral("scaleBox"))->text();
    const auto* temperature = w.findChild<QWidget*>(QStringLiteral("temperatureBox"));
    for (const QLabel* label : w.optionsPanel()->findChildren<QLabel*>())
        if (label->buddy() == temperature)
            t.temperatureLabel = label->text();
    t.stepTitle = w.findChild<ui::StepsPanel*>()->stepTitle(3);
    teaching.setSlide(1);
    t.slideTitle = teaching.currentSlide()->title;
    t.qtCancel = QCoreApplication::translate("QPlatformTheme", "Cancel");
    return t;
}

void switchTo(const QString& code)
{
    QVERIFY(ui::i18n::applyLanguage(code));
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
}

/** The placeholders of a message: %1 … %99, %n and an &-accelerator's presence. */
QStringList placeholders(const QString& text)
{
    QStringList list;
    static const QRegularExpression re(QStringLiteral("%(\\d{1,2}|n)"));
    for (auto it = re.globalMatch(text); it.hasNext();)
        list << it.next().captured(0);
    list.sort();
    list.removeDuplicates();
    QString plain = text;
    plain.replace(QStringLiteral("&&"), QString()).replace(QStringLiteral("&nbsp;"), QString());
    if (plain.contains(QRegularExpression(QStringLiteral("&[^ &;]"))))
        list << QStringLiteral("&");
    return list;
}

}  // namespace

class TestLanguage : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_language"));
        QSettings().clear();
    }

    void chineseIsEmbedded()
    {
        QVERIFY(ui::i18n::hasTranslation(QStringLiteral("zh_CN")));
        QCOMPARE(ui::i18n::availableLanguages(), (QStringList{QStringLiteral("en"), QStringLiteral("zh_CN")}));
        QVERIFY(!ui::i18n::applyLanguage(QStringLiteral("fr")));
    }

    void switchingChangesTextsAndBack()
    {
        ui::MainWindow w;
        ui::TeachingView teaching(w.document(), w.viewState());
        w.document()->waitForTrace();
        QCoreApplication::processEvents();
        const Texts english = readTexts(w, teaching);
        QCOMPARE(english.menus.first(), QStringLiteral("&File"));
        QCOMPARE(english.optionsDock, QStringLiteral("Options"));
        QCOMPARE(english.qtCancel, QStringLiteral("Cancel"));

        switchTo(QStringLiteral("zh_CN"));
        QCOMPARE(ui::i18n::currentLanguage(), QStringLiteral("zh_CN"));
        const Texts chinese = readTexts(w, teaching);
        QCOMPARE(chinese.menus.first(), QStringLiteral("文件(&F)"));
        QCOMPARE(chinese.menus.size(), english.menus.size());
        for (int i = 0; i < chinese.menus.size(); ++i)
            QVERIFY2(chinese.menus[i] != english.menus[i], qPrintable(english.menus[i]));
        QCOMPARE(chinese.optionsDock, QStringLiteral("选项"));
        QCOMPARE(chinese.scaleBox, QStringLiteral("分数除以 √d_k"));
        QCOMPARE(chinese.temperatureLabel, QStringLiteral("温度(&E)"));
        QCOMPARE(chinese.stepTitle, QStringLiteral("3 · 分数"));
        QVERIFY2(chinese.slideTitle.startsWith(QStringLiteral("步骤 2")), qPrintable(chinese.slideTitle));
        QCOMPARE(chinese.qtCancel, QStringLiteral("取消"));  // Qt's own texts, from qtbase_zh_CN

        switchTo(QStringLiteral("en"));
        const Texts back = readTexts(w, teaching);
        QCOMPARE(back.menus, english.menus);
        QCOMPARE(back.optionsDock, english.optionsDock);
        QCOMPARE(back.scaleBox, english.scaleBox);
        QCOMPARE(back.temperatureLabel, english.temperatureLabel);
        QCOMPARE(back.stepTitle, english.stepTitle);
        QCOMPARE(back.slideTitle, english.slideTitle);
        QCOMPARE(back.qtCancel, english.qtCancel);
        QVERIFY(back == english);
    }

    void theMenuSwitchesAndRemembers()
    {
        ui::MainWindow w;
        auto* chinese = w.findChild<QAction*>(QStringLiteral("language_zh_CN"));
        QVERIFY(chinese);
        QCOMPARE(chinese->text(), QStringLiteral("简体中文"));
        chinese->trigger();
        QCoreApplication::processEvents();
        QCOMPARE(ui::i18n::currentLanguage(), QStringLiteral("zh_CN"));
        QCOMPARE(ui::i18n::savedLanguage(), QStringLiteral("zh_CN"));
        QVERIFY(chinese->isChecked());
        QCOMPARE(w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->windowTitle(), QStringLiteral("步骤"));

        w.findChild<QAction*>(QStringLiteral("language_en"))->trigger();
        QCoreApplication::processEvents();
        QCOMPARE(ui::i18n::savedLanguage(), QStringLiteral("en"));
        QCOMPARE(w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->windowTitle(), QStringLiteral("Steps"));
    }

    /** With AE_SCREENSHOT_DIR set, writes the window and a teaching slide in Chinese there, to look at. */
    void screenshots()
    {
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("AE_SCREENSHOT_DIR is not set");
        switchTo(QStringLiteral("zh_CN"));
        ui::MainWindow w;
        w.resize(1400, 860);
        w.show();
        w.document()->waitForTrace();
        QTest::qWait(200);
        QVERIFY(w.grab().save(dir + QStringLiteral("/window-zh_CN.png")));
        ui::TeachingView teaching(w.document(), w.viewState());
        teaching.resize(1400, 860);
        teaching.show();
        for (int i = 0; i < teaching.slideCount(); ++i) {
            teaching.setSlide(i);
            QTest::qWait(50);
            QVERIFY(teaching.grab().save(dir + QStringLiteral("/teaching-zh_CN-%1.png").arg(i + 1)));
        }
        switchTo(QStringLiteral("en"));
    }

    void everyMessageIsTranslated()
    {
        QFile file(QStringLiteral(AE_SOURCE_DIR "/resources/translations/attention-explorer_zh_CN.ts"));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        QXmlStreamReader xml(&file);
        int messages = 0;
        QString source;
        QStringList problems;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement())
                continue;
            if (xml.name() == QLatin1String("source")) {
                source = xml.readElementText();
            } else if (xml.name() == QLatin1String("translation")) {
                const QString type = xml.attributes().value(QLatin1String("type")).toString();
                if (type == QLatin1String("vanished") || type == QLatin1String("obsolete")) {
                    xml.skipCurrentElement();
                    continue;
                }
                ++messages;
                QString text;
                if (type == QLatin1String("unfinished"))
                    problems << QStringLiteral("unfinished: ") + source;
                // Plural messages hold <numerusform> children; the others plain text.
                while (!(xml.isEndElement() && xml.name() == QLatin1String("translation")) && !xml.atEnd()) {
                    xml.readNext();
                    if (xml.isCharacters())
                        text += xml.text();
                }
                if (text.trimmed().isEmpty())
                    problems << QStringLiteral("empty: ") + source;
                else if (placeholders(text) != placeholders(source))
                    problems << QStringLiteral("placeholders differ: ") + source + QStringLiteral(" → ") + text;
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(messages > 300);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestLanguage)
#include "tst_language.moc"
