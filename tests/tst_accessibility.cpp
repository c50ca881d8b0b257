/** What a screen reader finds in the window: every control it can reach has a name, and the heatmap
 *  reads as a table whose cells say "query i, key j: value". */

#include "isolation.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"

#include <QAccessible>
#include <QDockWidget>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <set>

namespace {

/** Roles a person acts on: each needs a name a screen reader can say. */
bool isInteractive(QAccessible::Role role)
{
    switch (role) {
    case QAccessible::PushButton:
    case QAccessible::CheckBox:
    case QAccessible::RadioButton:
    case QAccessible::ComboBox:
    case QAccessible::SpinBox:
    case QAccessible::Slider:
    case QAccessible::Dial:
    case QAccessible::EditableText:
    case QAccessible::ButtonMenu:
    case QAccessible::ButtonDropDown:
    case QAccessible::ButtonDropGrid:
    case QAccessible::PageTab:
    case QAccessible::MenuItem:
    case QAccessible::Link:
    case QAccessible::Table:
    case QAccessible::List:
    case QAccessible::Tree:
        return true;
    default:
        return false;
    }
}

/** Describes iface for a failure message: its class, object name and role. */
QString describe(QAccessibleInterface* iface)
{
    QObject* object = iface->object();
    return QStringLiteral("%1 \"%2\" (role %3)")
        .arg(object ? QString::fromLatin1(object->metaObject()->className()) : QStringLiteral("-"),
             object ? object->objectName() : QString())
        .arg(int(iface->role()));
}

/** Walks the accessible tree under iface; lists the visible controls a person can reach that have no name. */
void collectUnnamed(QAccessibleInterface* iface, QStringList& unnamed, std::set<QAccessibleInterface*>& seen,
                    int& controls)
{
    if (!iface || !iface->isValid() || !seen.insert(iface).second)
        return;
    const QAccessible::State state = iface->state();
    if (state.invisible || state.offscreen)
        return;
    // The cells of tables name themselves from their data; tables are checked as a whole.
    if (iface->role() == QAccessible::Cell || iface->role() == QAccessible::ColumnHeader ||
        iface->role() == QAccessible::RowHeader)
        return;
    if (isInteractive(iface->role()) || state.focusable) {
        ++controls;
        if (iface->text(QAccessible::Name).trimmed().isEmpty())
            unnamed << describe(iface);
    }
    for (int i = 0; i < iface->childCount(); ++i)
        collectUnnamed(iface->child(i), unnamed, seen, controls);
}

}  // namespace

class TestAccessibility : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_accessibility"), m_dir.filePath(QStringLiteral("settings")));
    }
    void init()
    {
        QSettings().clear();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->resize(1280, 720);
        m_window->show();
        m_window->document()->waitForTrace();
        QTest::qWait(50);
    }
    void cleanup() { m_window.reset(); }

    void everyControlHasAName_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QStringLiteral("en");
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
    }
    void everyControlHasAName()
    {
        QFETCH(QString, language);
        QVERIFY(ui::i18n::applyLanguage(language));
        QCoreApplication::processEvents();
        QStringList unnamed;
        std::set<QAccessibleInterface*> seen;
        int controls = 0;
        collectUnnamed(QAccessible::queryAccessibleInterface(m_window.get()), unnamed, seen, controls);
        // Docks that are tabs behind others are reached from their own widgets too.
        for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
            collectUnnamed(QAccessible::queryAccessibleInterface(dock), unnamed, seen, controls);
        QVERIFY2(controls >= 40, qPrintable(QString::number(controls)));
        QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QStringLiteral("\n"))));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

    void heatmapReadsAsATable()
    {
        ui::HeatmapCanvas* canvas = m_window->heatmap()->canvas();
        QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(canvas);
        QVERIFY(iface);
        QCOMPARE(iface->role(), QAccessible::Table);
        QAccessibleTableInterface* table = iface->tableInterface();
        QVERIFY(table);
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->columnCount(), 3);
        QCOMPARE(iface->childCount(), 9);
        const QString expected[] = {QStringLiteral("query 1, key 1: 0.06"), QStringLiteral("query 1, key 2: 0.47"),
                                    QStringLiteral("query 1, key 3: 0.47")};
        for (int j = 0; j < 3; ++j) {
            QAccessibleInterface* cell = table->cellAt(0, j);
            QVERIFY(cell);
            QCOMPARE(cell->role(), QAccessible::Cell);
            QCOMPARE(cell->text(QAccessible::Name), expected[j]);
            QAccessibleTableCellInterface* c = cell->tableCellInterface();
            QVERIFY(c);
            QCOMPARE(c->rowIndex(), 0);
            QCOMPARE(c->columnIndex(), j);
            QCOMPARE(cell->parent(), iface);
            QCOMPARE(iface->indexOfChild(cell), j);
            QVERIFY(canvas->rect().contains(QRect(canvas->mapFromGlobal(cell->rect().topLeft()), cell->rect().size())));
        }
        QCOMPARE(table->cellAt(1, 1)->text(QAccessible::Name), QStringLiteral("query 2, key 2: 0.98"));
        QCOMPARE(table->rowDescription(0), QStringLiteral("Input 1"));
        QCOMPARE(table->columnDescription(2), QStringLiteral("Input 3"));
        QVERIFY(table->cellAt(3, 0) == nullptr);

        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("zh_CN")));
        QCoreApplication::processEvents();
        QCOMPARE(table->cellAt(0, 1)->text(QAccessible::Name), QStringLiteral("查询 1，键 2：0.47"));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

QTEST_MAIN(TestAccessibility)
#include "tst_accessibility.moc"
