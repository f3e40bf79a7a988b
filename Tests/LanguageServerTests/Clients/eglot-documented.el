;;; eglot-documented.el --- Emacs and eglot as a real client of `bikecheck lsp'.
;; Run after the eglot set-up docs/editor.md shows, taken from the page as it is (RealClientTests):
;;   emacs --batch -l SETUP.el -l eglot-documented.el
;; Visits $BIKECHECK_FILE, starts eglot as `M-x eglot' does, waits for bikecheck's diagnostics,
;; asks for the completions at $BIKECHECK_COMPLETE_AT ("line:character", 0-based), prints one
;; line for each ("DIAGNOSTIC line:col text", "COMPLETION label"), shuts the server down and exits
;; (status 2 when no diagnostic came).
(let* ((at (mapcar #'string-to-number (split-string (getenv "BIKECHECK_COMPLETE_AT") ":")))
       (deadline (+ (float-time) 20))
       (diagnostics nil))
  (find-file (getenv "BIKECHECK_FILE"))
  (call-interactively #'eglot)
  (while (and (null (setq diagnostics (or (flymake-diagnostics) eglot--diagnostics)))
              (< (float-time) deadline))
    (accept-process-output nil 0.05))
  (dolist (d diagnostics)
    (let ((beg (flymake-diagnostic-beg d)))
      (princ (format "DIAGNOSTIC %d:%d %s\n"
                     (1- (line-number-at-pos beg))
                     (save-excursion (goto-char beg) (current-column))
                     (flymake-diagnostic-text d)))))
  (goto-char (point-min))
  (forward-line (nth 0 at))
  (forward-char (nth 1 at))
  (let ((capf (eglot-completion-at-point)))
    (when capf
      (dolist (label (all-completions (buffer-substring-no-properties (nth 0 capf) (nth 1 capf)) (nth 2 capf)))
        (princ (format "COMPLETION %s\n" (substring-no-properties label))))))
  (eglot-shutdown (eglot-current-server))
  (kill-emacs (if diagnostics 0 2)))
