#pragma once
/** DialogAnswer: answers the modal message boxes a test's action brings up, as a person would, and keeps what they
 *  said. One for every test that must get past a box (an exec() that would wait for ever) or read one. */

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QString>
#include <QStringList>
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

}  // namespace testutil
