/** The interface language: switching to Simplified Chinese and back while running, remembering the
 *  choice, Qt's own texts, and a Chinese translation file with every message finished. */

#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/i18n/language.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/steps/optionspanel.h"
#include "ui/views/teaching/presetnames.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/teaching/teachingslides.h"
#include "ui/views/teaching/teachingview.h"
#include "ui/render/slidepainter.h"

#include "core/attention/attention.h"
#include "core/session/presets.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QTabBar>
#include <QTableView>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QXmlStreamReader>

#include <functional>

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

/** The visible texts of a window and its children: labels, buttons, tabs, dock titles, combo box items,
 *  placeholders, table headers and tooltips, and the texts of its menus. */
QStringList visibleTexts(QWidget& window)
{
    QStringList texts;
    auto add = [&](const QString& t) {
        if (!t.trimmed().isEmpty())
            texts << t;
    };
    for (QWidget* w : window.findChildren<QWidget*>()) {
        if (!w->isVisible() || w->visibleRegion().isEmpty())
            continue;  // hidden, or in a dock behind another one's tab
        add(w->toolTip());
        if (auto* l = qobject_cast<QLabel*>(w))
            add(l->text());
        else if (auto* b = qobject_cast<QAbstractButton*>(w))
            add(b->text());
        else if (auto* g = qobject_cast<QGroupBox*>(w))
            add(g->title());
        else if (auto* d = qobject_cast<QDockWidget*>(w))
            add(d->windowTitle());
        else if (auto* e = qobject_cast<QLineEdit*>(w))
            add(e->placeholderText());
        if (auto* tabs = qobject_cast<QTabBar*>(w))
            for (int i = 0; i < tabs->count(); ++i) {
                add(tabs->tabText(i));
                add(tabs->tabToolTip(i));
            }
        if (auto* combo = qobject_cast<QComboBox*>(w))
            for (int i = 0; i < combo->count(); ++i)
                add(combo->itemText(i));
        if (auto* table = qobject_cast<QTableView*>(w); table && table->model())
            for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
                const int count = o == Qt::Horizontal ? table->model()->columnCount() : table->model()->rowCount();
                for (int i = 0; i < count && i < 16; ++i) {
                    add(table->model()->headerData(i, o).toString());
                    add(table->model()->headerData(i, o, Qt::ToolTipRole).toString());
                }
                for (int r = 0; r < table->model()->rowCount() && r < 4; ++r)
                    for (int c = 0; c < table->model()->columnCount() && c < 4; ++c)
                        add(table->model()->index(r, c).data(Qt::ToolTipRole).toString());
            }
    }
    std::function<void(const QList<QAction*>&)> actions = [&](const QList<QAction*>& list) {
        for (QAction* a : list) {
            add(a->text());
            add(a->statusTip());
            if (a->menu())
                actions(a->menu()->actions());
        }
    };
    actions(window.actions());
    for (QMenuBar* bar : window.findChildren<QMenuBar*>())
        actions(bar->actions());
    return texts;
}

/** The English words of a text meant to be Chinese: runs of three or more Latin letters, leaving out
 *  the session's own tokens, the names of mathematics (d_model, W_Q, softmax, exp, max, √d_k) and the
 *  few names that stay as they are (the program, file formats, keys, English in the language menu, the names of
 *  norms, RoPE and model families, logit and MLP). */
QStringList englishWords(QString text, const QStringList& tokens)
{
    static const QRegularExpression tags(QStringLiteral("<[^>]*>|&[a-z]+;"));
    static const QRegularExpression identifiers(QStringLiteral("\\b[A-Za-z]+_[A-Za-z0-9]+\\b"));
    static const QRegularExpression words(QStringLiteral("[A-Za-z]{3,}"));
    // File names (a checkpoint's config.json, model.safetensors) are what the files are called.
    static const QRegularExpression fileNames(QStringLiteral("\\b[A-Za-z_]+\\.(json|safetensors|txt|bin)\\b"));
    static const QStringList kept{QStringLiteral("softmax"), QStringLiteral("exp"), QStringLiteral("max"),
                                  QStringLiteral("Attention"), QStringLiteral("Explorer"), QStringLiteral("English"),
                                  QStringLiteral("Language"), QStringLiteral("PNG"), QStringLiteral("SVG"),
                                  QStringLiteral("PDF"), QStringLiteral("CSV"), QStringLiteral("JSON"),
                                  QStringLiteral("npy"), QStringLiteral("PyTorch"), QStringLiteral("GPT"),
                                  QStringLiteral("Glorot"), QStringLiteral("Vaswani"), QStringLiteral("Ctrl"),
                                  QStringLiteral("Shift"), QStringLiteral("Esc"), QStringLiteral("Space"),
                                  QStringLiteral("PgUp"), QStringLiteral("PgDown"), QStringLiteral("Del"),
                                  QStringLiteral("Illustrated"), QStringLiteral("Self"), QStringLiteral("Thinking"),
                                  QStringLiteral("Machines"), QStringLiteral("sin"), QStringLiteral("cos"),
                                  QStringLiteral("Softmax"), QStringLiteral("Viridis"), QStringLiteral("Magma"),
                                  QStringLiteral("Cividis"), QStringLiteral("Python"), QStringLiteral("torch"),
                                  QStringLiteral("The"), QStringLiteral("Transformer"), QStringLiteral("RoPE"),
                                  QStringLiteral("RMS"), QStringLiteral("RMSNorm"), QStringLiteral("LayerNorm"),
                                  QStringLiteral("Qwen"), QStringLiteral("NeoX"), QStringLiteral("Hugging"),
                                  QStringLiteral("Face"), QStringLiteral("Hub"), QStringLiteral("safetensors"),
                                  QStringLiteral("logit"), QStringLiteral("logits"), QStringLiteral("MLP")};
    text.replace(tags, QStringLiteral(" ")).remove(identifiers).remove(fileNames);
    QStringList found;
    for (auto it = words.globalMatch(text); it.hasNext();) {
        const QString w = it.next().captured(0);
        if (!kept.contains(w, Qt::CaseInsensitive) && !tokens.contains(w, Qt::CaseInsensitive))
            found << w;
    }
    return found;
}

QStringList tokensOf(const core::AttentionModel& model)
{
    QStringList tokens;
    for (const std::string& t : model.tokens)
        tokens << QString::fromStdString(t).split(QRegularExpression(QStringLiteral("[^A-Za-z]+")), Qt::SkipEmptyParts);
    return tokens;
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

    void presetSessionTitlesFollowTheLanguage()
    {
        // Exports and the window title show a preset's session title in the interface language; the file keeps
        // the English one, and a title of the user's own stays as written.
        const auto storedTitle = [](const char* name) {
            return QString::fromStdString(core::preset(name)->extras["title"].get<std::string>());
        };
        const QString own = QStringLiteral("My own attention");
        switchTo(QStringLiteral("zh_CN"));
        for (const char* name : {"illustrated", "illustrated-scaled", "causal-sentence", "multi-head"}) {
            const QString shown = ui::sessionTitleForPeople(storedTitle(name));
            QVERIFY2(shown != storedTitle(name), name);
            QVERIFY2(shown.contains(QRegularExpression(QStringLiteral("[\\x{4e00}-\\x{9fff}]"))), qPrintable(shown));
        }
        QCOMPARE(ui::sessionTitleForPeople(storedTitle("chinese")), storedTitle("chinese"));
        QCOMPARE(ui::sessionTitleForPeople(own), own);
        switchTo(QStringLiteral("en"));
        for (const core::PresetInfo& info : core::presetList())
            QCOMPARE(ui::sessionTitleForPeople(storedTitle(info.name.c_str())), storedTitle(info.name.c_str()));
    }

    void windowTitlesNameTheProgramOnceInTheLanguage()
    {
        // The window system ends every title with the application's display name: the titles themselves name
        // no program, and the display name is the program's name in the interface language.
        const QString english = QStringLiteral("Attention Explorer"), chinese = QStringLiteral("注意力探索器");
        ui::MainWindow w;
        w.show();
        w.findChild<QAction*>(QStringLiteral("teachingAction"))->trigger();
        auto* teaching = w.findChild<ui::TeachingView*>();
        QVERIFY(teaching && teaching->isWindow());
        const auto check = [&](const QString& name, const QString& teachingTitle) {
            QCOMPARE(QGuiApplication::applicationDisplayName(), name);
            QCOMPARE(teaching->windowTitle(), teachingTitle);
            for (const QString& title : {w.windowTitle(), teaching->windowTitle()})
                QVERIFY2(!title.contains(english) && !title.contains(chinese), qPrintable(title));
        };
        for (const QString& code : {QStringLiteral("en"), QStringLiteral("zh_CN"), QStringLiteral("en")}) {
            switchTo(code);
            const bool zh = code == QLatin1String("zh_CN");
            check(zh ? chinese : english, zh ? QStringLiteral("教学模式") : QStringLiteral("Teaching Mode"));
            if (QTest::currentTestFailed())
                return;
        }
        teaching->close();
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

    /** In Chinese, no text the window, its slides or a zoom show is left in English: of the worked
     *  example, and of the two-head preset with W_O and the causal mask. */
    void noVisibleTextIsLeftInEnglish()
    {
        switchTo(QStringLiteral("zh_CN"));
        ui::MainWindow w;
        w.resize(1280, 720);
        w.show();
        QStringList problems;
        for (const char* preset : {"illustrated", "multi-head"}) {
            QVERIFY(w.loadPreset(QString::fromLatin1(preset)));
            core::Options o = w.document()->model().options;
            o.mask = core::Mask::Causal;
            w.document()->setOptions(o);
            QVERIFY(w.document()->waitForTrace(10000));
            QTest::qWait(200);  // the panels follow the new trace
            QStringList texts = visibleTexts(w);
            // The walkthrough is the steps panel's neighbour tab: read it in front too.
            auto* walkthrough = w.findChild<QDockWidget*>(QStringLiteral("walkthroughDock"));
            QVERIFY(walkthrough);
            walkthrough->raise();
            QTest::qWait(100);
            texts << visibleTexts(w);
            w.findChild<QDockWidget*>(QStringLiteral("stepsDock"))->raise();
            texts << w.document()->undoStack()->undoText();
            // Every slide as painted, every text it drew.
            for (const render::Slide& slide : ui::buildSlides(*w.document()->trace(), 0, 0)) {
                QImage image(1280, 720, QImage::Format_RGB32);
                QPainter p(&image);
                render::SlidePainter painter(slide, QFont(), render::SlideColors());
                painter.setPage(1, 2);
                painter.paint(p, QRectF(0, 0, 1280, 720));
                for (const render::DrawnText& t : painter.drawn())
                    texts << t.text;
            }
            const QStringList tokens = tokensOf(w.document()->model());
            for (const QString& t : texts)
                if (const QStringList words = englishWords(t, tokens); !words.isEmpty())
                    problems << QStringLiteral("%1: “%2” (%3)").arg(QLatin1String(preset), t, words.join(QLatin1Char(' ')));
        }
        problems.removeDuplicates();
        switchTo(QStringLiteral("en"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
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
