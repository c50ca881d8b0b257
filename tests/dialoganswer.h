#pragma once
/** DialogAnswer: answers the modal message boxes a test's action brings up, as a person would, and keeps what they
 *  said. One for every test that must get past a box (an exec() that would wait for ever) or read one.
 *  triggerAnswering(): runs a menu action whose file dialog is answered with a path. */

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QString>
#include <QStringList>
#include <QTest>
#include <QTimer>

namespace testutil {

class DialogAnswer {
public:
    /** From now on, while it lives, answers each modal message box: records its title, text and informative text
     *  (one entry a box, on three lines), then clicks its button whose object name is buttonName, or closes it
     *  when it has none by that name (as Escape would). */
    explicit DialogAnswer(const QString& buttonName = {})
    {
        m_timer.setInterval(10);
        QObject::connect(&m_timer, &QTimer::timeout, [this, buttonName] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box || !box->isVisible())
                return;
            m_texts << box->windowTitle() + QLatin1Char('\n') + box->text() + QLatin1Char('\n')
                    + box->informativeText();
            m_leads << box->text();
            m_details << box->informativeText();
            auto* button = buttonName.isEmpty() ? nullptr : box->findChild<QAbstractButton*>(buttonName);
            if (button)
                button->click();
            else
                box->close();
        });
        m_timer.start();
    }

    /** Every box answered so far: title, text and informative text. */
    const QStringList& texts() const { return m_texts; }
    /** Their texts (the first line) and informative texts (the detail beneath), in the same order. */
    const QStringList& leads() const { return m_leads; }
    const QStringList& details() const { return m_details; }

private:
    QTimer m_timer;
    QStringList m_texts, m_leads, m_details;
};

/** Triggers action as its menu entry would and answers the dialogs it opens: a file dialog with path, a number
 *  asked for with the value offered. Returns the text of any other dialog (an error box), which it closes. */
inline QStringList triggerAnswering(QAction* action, const QString& path)
{
    QStringList others;
    QTimer answer;
    answer.setInterval(20);
    QObject::connect(&answer, &QTimer::timeout, [&] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* files = qobject_cast<QFileDialog*>(modal)) {
            // Typed into the name box, as a person would: the dialog reads it when accepted.
            auto* name = files->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            if (!name)
                return;
            name->setText(path);
            static_cast<QDialog*>(files)->accept();  // QFileDialog::accept(), as its Save button calls it
        } else if (auto* number = qobject_cast<QInputDialog*>(modal)) {
            number->accept();
        } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
            others << box->text() + QLatin1Char('\n') + box->informativeText();
            box->reject();
        }
    });
    answer.start();
    action->trigger();
    // An error box opened without a loop of its own is answered here.
    for (int i = 0; i < 10; ++i)
        QTest::qWait(20);
    for (QWidget* top : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) {
            others << box->text() + QLatin1Char('\n') + box->informativeText();
            box->close();
        }
    return others;
}

}  // namespace testutil
