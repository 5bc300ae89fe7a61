import { Suspense } from "react";
import { SignInView } from "@/components/auth/sign-in-view";

export const metadata = { title: "Sign in · Tandem" };

export default function SignInPage() {
  return (
    <Suspense>
      <SignInView />
    </Suspense>
  );
}
