<?php
// php -S router: every HTML page opens (or resumes) a PHP session, as a site whose pages
// call session_start() does. With session.use_trans_sid on (the command's -d options),
// PHP writes ?PHPSESSID=... into the page's links for a client that returned no session
// cookie, and offers the session as a cookie; a client that keeps it gets plain links.
// Anything else falls through to the built-in server (return false).
$path = rawurldecode(parse_url($_SERVER["REQUEST_URI"], PHP_URL_PATH) ?? "/");
$file = $_SERVER["DOCUMENT_ROOT"] . $path;
if (is_dir($file)) {
    $file = rtrim($file, "/") . "/index.html";  // /d and /d/ alike, as the built-in server does
}
if (!is_file($file) || !preg_match('/\.html?$/i', $file)) {
    return false;
}
session_start();
header("Content-Type: text/html; charset=UTF-8");
readfile($file);
